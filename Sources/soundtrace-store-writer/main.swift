// Placeholder: the power-loss test's writer process (issue 4) is being written.
print("soundtrace-store-writer")
