// Compiles Debian's KissFFT sources with the fixed-point width set in CKissFFT.h, and adds the
// deterministic-twiddle allocator. The vendor sources are fetched by scripts/fetch-kissfft.sh.
#include "include/CKissFFT.h"
// SwiftPM defines DEBUG=1 for debug builds; KissFFT uses DEBUG as a log-level name.
#undef DEBUG
// soundtrace_fftr_alloc below overwrites every twiddle KissFFT computes, so KissFFT's own
// computation through libm's cos and sin is wasted work; worse, it faults in about 200 KiB of
// libm's tables, which then stay resident in the daemon after its first session (measured in
// bench/daemon). Its guts header is included first (it has an include guard) so that its
// twiddle macro can be replaced by one that only zeroes the entry.
#include "vendor/_kiss_fft_guts.h"
#undef kf_cexp
#define kf_cexp(x, phase) do { (void)(phase); (x)->r = 0; (x)->i = 0; } while (0)
#include "vendor/kiss_fft.c"
#include "vendor/kiss_fftr.c"

// cos(2*pi*k/n) from the table, for any integer k (the table holds one full period).
static int32_t table_cos(const int32_t *cosTable, int n, long k) {
    long m = k % n;
    if (m < 0) m += n;
    return cosTable[m];
}

// exp(-2*pi*i*k/n) as a Q31 complex number.
static kiss_fft_cpx table_twiddle(const int32_t *cosTable, int n, long k) {
    kiss_fft_cpx c;
    c.r = table_cos(cosTable, n, k);
    // sin(x) = cos(x - pi/2), and the forward transform uses the negative angle.
    c.i = -table_cos(cosTable, n, k - n / 4);
    return c;
}

kiss_fftr_cfg soundtrace_fftr_alloc(int nfft, const int32_t *cosTable) {
    if (nfft <= 0 || (nfft % 4) != 0 || cosTable == NULL) return NULL;
    kiss_fftr_cfg st = kiss_fftr_alloc(nfft, 0, NULL, NULL);
    if (st == NULL) return NULL;
    int ncfft = st->substate->nfft;
    // The complex sub-FFT of ncfft = nfft/2 points uses exp(-2*pi*i*j/ncfft) = angle index 2j of nfft.
    for (int j = 0; j < ncfft; ++j) {
        st->substate->twiddles[j] = table_twiddle(cosTable, nfft, 2L * j);
    }
    // KissFFT's super twiddles: phase -pi*((j+1)/ncfft + 1/2) = -2*pi*((j+1) + nfft/4)/nfft.
    for (int j = 0; j < ncfft / 2; ++j) {
        st->super_twiddles[j] = table_twiddle(cosTable, nfft, (long)(j + 1) + nfft / 4);
    }
    return st;
}

void soundtrace_fftr_free(kiss_fftr_cfg cfg) {
    KISS_FFT_FREE(cfg);
}
