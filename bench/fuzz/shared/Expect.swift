// Compiled into every harness. A harness states what must hold beyond "no crash"; `precondition`
// drops its message in -O builds, so a broken expectation stops through fatalError, which keeps it.
func expect(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz expectation: \(message())") }
}
