#ifndef SOUNDTRACE_CKISSFFT_H
#define SOUNDTRACE_CKISSFFT_H

// The one place the fixed-point width is chosen. It must be visible both to the C compile of KissFFT
// (kissfft_fixed.c includes this header first) and to Swift's import of the same declarations;
// SwiftPM drops -D flags from pkg-config and cSettings do not reach Swift's importer.
// Q31 was chosen over Q15 on measured evidence: see docs/BENCHMARKS.md.
#define FIXED_POINT 32

#include <stdint.h>
#include "../vendor/kiss_fftr.h"

/// Allocates a forward real FFT of `nfft` points whose twiddle factors are replaced by `cosTable`
/// (`nfft` entries of round(INT32_MAX * cos(2*pi*k/nfft))), so the transform does not depend on the
/// platform's libm and a catalog is byte-identical on every CPU. Returns NULL on failure.
kiss_fftr_cfg soundtrace_fftr_alloc(int nfft, const int32_t *cosTable);

/// Frees a configuration made by soundtrace_fftr_alloc (kiss_fftr_free is a macro Swift cannot see).
void soundtrace_fftr_free(kiss_fftr_cfg cfg);

#endif
