/*
 * fftprec.c - precision and cost probe for KissFFT's fixed-point real FFT (kiss_fftr)
 * as used by the Soundtrace fingerprint front end.
 *
 * Build (run.sh does this):
 *   gcc -O2 -DFIXED_POINT=16 -I<vendor> fftprec.c <vendor>/kiss_fft.c <vendor>/kiss_fftr.c -lm
 *   gcc -O2 -DFIXED_POINT=32 -I<vendor> fftprec.c <vendor>/kiss_fft.c <vendor>/kiss_fftr.c -lm
 *
 * Modes:
 *   fftprec prec              precision table rows (TSV, one per signal and FFT size; the Q31
 *                             build adds "Q31-fullwin" rows, see wide_window below)
 *   fftprec selftest          checks the double reference FFT against a direct DFT
 *   fftprec stress            full-scale worst-case frames (for an UBSan build)
 *   fftprec info N            bytes of kiss_fftr state for size N
 *   fftprec bench N K fft     exactly K kiss_fftr calls of size N (for callgrind)
 *   fftprec bench N K frame   K whole front-end frames: window + kiss_fftr + power + integer log2
 *
 * Front end modelled: 8000 Hz int16 audio, frames of N samples, hop 128, periodic Hann
 * window in Q15 applied with integer math and rounded back to int16, kiss_fftr, power per bin
 * (re^2 + im^2 as an unsigned integer), integer log2 of power.  For the Q31 build the
 * windowed int16 sample is fed as sample * 65536 (i.e. shifted left by 16).
 *
 * The reference is a double-precision radix-2 FFT written here.  Two references are used:
 *   "fft" reference   : the same integer-windowed int16 frame, transformed in double.
 *                       Its difference to the fixed-point result is the FFT's own error.
 *   "ideal" reference : the raw int16 samples times the exact double Hann window, in double.
 *                       Its difference also includes the Q15 window rounding to int16.
 * KissFFT's fixed-point forward transform scales by 1/N, so both references are scaled by
 * 1/N (and by 65536/N for Q31) and every power is expressed in the fixed-point build's own
 * output units (LSB^2 of its kiss_fft_scalar).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiss_fftr.h"

#ifndef FIXED_POINT
#error "compile with -DFIXED_POINT=16 or -DFIXED_POINT=32"
#endif

#if FIXED_POINT == 32
#define VARIANT "Q31"
#define INPUT_SCALE 65536.0 /* windowed int16 << 16 */
typedef uint64_t power_t;
#else
#define VARIANT "Q15"
#define INPUT_SCALE 1.0
typedef uint32_t power_t;
#endif

#define FS 8000
#define HOP 128
#define NFRAMES 200
#define MAXN 1024
#define SIGLEN ((NFRAMES - 1) * HOP + MAXN)

/* ------------------------------------------------------------------ deterministic random */

static uint64_t rng_state;

static void rng_seed(uint64_t s) { rng_state = s * 0x9E3779B97F4A7C15ULL + 1; }

/* 64-bit LCG (Knuth's MMIX multiplier); the upper 32 bits are used. */
static uint32_t rng_u32(void)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(rng_state >> 32);
}

/* uniform in the open interval (0, 1) */
static double rng_uniform(void) { return ((double)rng_u32() + 0.5) / 4294967296.0; }

/* standard normal, Box-Muller (one value per call, the second one is discarded) */
static double rng_gauss(void)
{
    double u1 = rng_uniform(), u2 = rng_uniform();
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* ------------------------------------------------------------------ test signals */

/* Music-like mixture: overlapping notes, each a slightly inharmonic harmonic series with an
 * attack ramp and an exponential decay, fundamentals 110-880 Hz, partials kept below 3.9 kHz. */
static void gen_mixture(double *x, int len)
{
    memset(x, 0, sizeof(double) * (size_t)len);
    rng_seed(1);
    const int nnotes = 16;
    for (int i = 0; i < nnotes; i++) {
        int onset = (int)(i * 0.21 * FS + rng_uniform() * 0.05 * FS);
        if (i == 0) onset = 0;
        double f0 = 110.0 * pow(2.0, 3.0 * rng_uniform());
        double tau = 0.15 + 0.75 * rng_uniform();       /* decay time constant, s */
        double amp = 0.4 + 0.6 * rng_uniform();
        double inharm = 2e-4 * rng_uniform();
        int nh = 6 + (int)(rng_u32() % 5);
        double attack = 0.005 + 0.02 * rng_uniform();
        for (int h = 1; h <= nh; h++) {
            double fh = h * f0 * sqrt(1.0 + inharm * h * h);
            double ah = amp * (0.5 + 0.5 * rng_uniform()) / h;
            double ph = 2.0 * M_PI * rng_uniform();
            double tau_h = tau / (1.0 + 0.15 * (h - 1));  /* upper partials decay faster */
            if (fh >= 3900.0) continue;
            for (int n = onset; n < len; n++) {
                double t = (double)(n - onset) / FS;
                double env = (t < attack ? t / attack : 1.0) * exp(-t / tau_h);
                if (t > attack && env < 1e-7) break;
                x[n] += ah * env * sin(2.0 * M_PI * fh * t + ph);
            }
        }
    }
}

/* Pink noise by the Voss-McCartney method: 16 generators, generator j redrawn every 2^j
 * samples, plus one white generator redrawn every sample. */
static void gen_pink(double *x, int len, uint64_t seed)
{
    double rows[16];
    double sum = 0.0;
    rng_seed(seed);
    for (int j = 0; j < 16; j++) { rows[j] = rng_gauss(); sum += rows[j]; }
    for (int n = 0; n < len; n++) {
        if (n > 0) {
            int j = __builtin_ctz((unsigned)n);
            if (j < 16) { sum -= rows[j]; rows[j] = rng_gauss(); sum += rows[j]; }
        }
        x[n] = sum + rng_gauss();
    }
}

static double mean_power(const double *x, int len)
{
    double s = 0.0;
    for (int n = 0; n < len; n++) s += x[n] * x[n];
    return s / len;
}

static double peak_abs(const double *x, int len)
{
    double p = 0.0;
    for (int n = 0; n < len; n++) if (fabs(x[n]) > p) p = fabs(x[n]);
    return p;
}

static void quantize(const double *x, int16_t *q, int len, double gain)
{
    for (int n = 0; n < len; n++) {
        long v = lrint(x[n] * gain);
        if (v > 32767) v = 32767;
        if (v < -32768) v = -32768;
        q[n] = (int16_t)v;
    }
}

#define NSIG 9
static const char *sig_names[NSIG] = {
    "mix 0 dBFS peak", "mix -20 dBFS peak", "mix -40 dBFS peak", "mix -60 dBFS peak",
    "mix + pink, SNR 0 dB", "mix + pink, SNR -5 dB", "white -30 dBFS RMS",
    "digital silence", "1-LSB TPDF dither",
};

static void make_signals(int16_t sig[NSIG][SIGLEN])
{
    static double mix[SIGLEN], pink[SIGLEN], tmp[SIGLEN];
    gen_mixture(mix, SIGLEN);
    double mpk = peak_abs(mix, SIGLEN);
    const double dbs[4] = { 0.0, -20.0, -40.0, -60.0 };
    for (int i = 0; i < 4; i++) quantize(mix, sig[i], SIGLEN, 32767.0 * pow(10.0, dbs[i] / 20.0) / mpk);

    /* mixture + pink noise at a given SNR (mean power over the whole signal); the sum is
     * renormalised to a 0 dBFS peak so it does not clip. */
    gen_pink(pink, SIGLEN, 2);
    double pm = mean_power(mix, SIGLEN), pn = mean_power(pink, SIGLEN);
    const double snrs[2] = { 0.0, -5.0 };
    for (int i = 0; i < 2; i++) {
        double g = sqrt(pm / (pn * pow(10.0, snrs[i] / 10.0)));
        for (int n = 0; n < SIGLEN; n++) tmp[n] = mix[n] + g * pink[n];
        quantize(tmp, sig[4 + i], SIGLEN, 32767.0 / peak_abs(tmp, SIGLEN));
    }

    /* white Gaussian noise, RMS -30 dB relative to full-scale amplitude 32767 */
    rng_seed(3);
    for (int n = 0; n < SIGLEN; n++) tmp[n] = rng_gauss();
    quantize(tmp, sig[6], SIGLEN, 32767.0 * pow(10.0, -30.0 / 20.0) / sqrt(mean_power(tmp, SIGLEN)));

    memset(sig[7], 0, sizeof(sig[7]));

    /* TPDF dither of +-1 LSB: -1, 0, +1 with probabilities 1/4, 1/2, 1/4 */
    rng_seed(4);
    for (int n = 0; n < SIGLEN; n++) {
        uint32_t r = rng_u32();
        sig[8][n] = (int16_t)((int)((r >> 31) & 1) + (int)((r >> 30) & 1) - 1);
    }
}

/* ------------------------------------------------------------------ double reference FFT */

/* In-place iterative radix-2 complex FFT, forward (exp(-2*pi*i*k*n/N)), no scaling. */
static void ref_fft(double *re, double *im, int n)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j |= bit;
        if (i < j) {
            double t = re[i]; re[i] = re[j]; re[j] = t;
            t = im[i]; im[i] = im[j]; im[j] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        int half = len >> 1;
        for (int k = 0; k < half; k++) {
            /* twiddle computed directly for every k: no recurrence error */
            double wr = cos(2.0 * M_PI * k / len), wi = -sin(2.0 * M_PI * k / len);
            for (int s = 0; s < n; s += len) {
                int a = s + k, b = a + half;
                double xr = re[b] * wr - im[b] * wi;
                double xi = re[b] * wi + im[b] * wr;
                re[b] = re[a] - xr; im[b] = im[a] - xi;
                re[a] += xr;        im[a] += xi;
            }
        }
    }
}

/* power spectrum (bins 0..n/2) of a real frame, scaled by `scale` in amplitude */
static void ref_power(const double *x, int n, double scale, double *p)
{
    double re[MAXN], im[MAXN];
    for (int i = 0; i < n; i++) { re[i] = x[i]; im[i] = 0.0; }
    ref_fft(re, im, n);
    for (int k = 0; k <= n / 2; k++) p[k] = (re[k] * re[k] + im[k] * im[k]) * scale * scale;
}

/* ------------------------------------------------------------------ front end pieces */

static void make_window(int n, int32_t *wq15, double *wd)
{
    for (int i = 0; i < n; i++) {
        double h = 0.5 - 0.5 * cos(2.0 * M_PI * i / n); /* periodic Hann */
        long q = lrint(h * 32768.0);
        if (q > 32767) q = 32767;
        wq15[i] = (int32_t)q;
        wd[i] = h;
    }
}

/* Q15 window applied in integer math, rounded to int16 */
static inline int16_t window_sample(int16_t s, int32_t w)
{
    return (int16_t)(((int32_t)s * w + 16384) >> 15);
}

static inline kiss_fft_scalar to_kiss(int16_t v)
{
#if FIXED_POINT == 32
    return (kiss_fft_scalar)((int32_t)v * 65536); /* same as v << 16, without UB for v < 0 */
#else
    return v;
#endif
}

static inline power_t bin_power(kiss_fft_cpx c)
{
#if FIXED_POINT == 32
    return (uint64_t)((int64_t)c.r * c.r) + (uint64_t)((int64_t)c.i * c.i);
#else
    return (uint32_t)((int32_t)c.r * c.r) + (uint32_t)((int32_t)c.i * c.i);
#endif
}

/* integer log2 with the front end's convention that 0 and 1 both give 0 */
static inline int ilog2p(power_t p)
{
    if (p <= 1) return 0;
#if FIXED_POINT == 32
    return 63 - __builtin_clzll(p);
#else
    return 31 - __builtin_clz(p);
#endif
}

/* ------------------------------------------------------------------ precision run */

/* Q31 build only: also measure windowing without rounding to int16 (not part of the brief's
 * front end; reported as an extra "Q31-fullwin" variant). */
static int wide_window;

static volatile int64_t sink; /* keeps results alive in stress and bench modes */

struct stats {
    double snr_sum; int snr_frames;          /* mean per-frame power SNR vs fft reference */
    double snri_sum; int snri_frames;        /* same vs ideal reference */
    long zero_lost, ref_nonzero;             /* fixed == 0 while reference > 0 */
    long spurious, ref_zero;                 /* fixed > 0 while reference == 0 */
    double mae_sum; long mae_bins;           /* |10log10 fixed - 10log10 ref|, bins within 40 dB */
    long peaks_ref, peaks_kept;              /* reference local maxima also maxima in fixed */
    double pow_fix, pow_ref;                 /* totals for the gain bias */
};

static double frame_snr(const double *pf, const double *pr, int nb)
{
    double num = 0.0, den = 0.0;
    for (int k = 0; k < nb; k++) { double d = pf[k] - pr[k]; num += pr[k] * pr[k]; den += d * d; }
    if (num == 0.0) return NAN;
    if (den == 0.0) return 200.0; /* exact: capped */
    return 10.0 * log10(num / den);
}

static int is_local_max(const double *p, int k)
{
    for (int j = 1; j <= 3; j++)
        if (!(p[k] > p[k - j] && p[k] > p[k + j])) return 0;
    return 1;
}

static void run_precision(int n, int16_t sig[NSIG][SIGLEN])
{
    int32_t wq[MAXN];
    double wd[MAXN];
    make_window(n, wq, wd);
    kiss_fftr_cfg cfg = kiss_fftr_alloc(n, 0, NULL, NULL);
    if (!cfg) { fprintf(stderr, "kiss_fftr_alloc(%d) failed\n", n); exit(1); }

    const int nb = n / 2 + 1;
    const double scale = INPUT_SCALE / n;   /* reference amplitude -> fixed-point units */
    const int kmin = (250 * n + FS - 1) / FS, kmax = (3800 * n) / FS;

    for (int s = 0; s < NSIG; s++) {
        struct stats st;
        memset(&st, 0, sizeof st);
        for (int f = 0; f < NFRAMES; f++) {
            const int16_t *x = sig[s] + f * HOP;
            kiss_fft_scalar in[MAXN];
            kiss_fft_cpx out[MAXN / 2 + 1];
            double xw[MAXN], xi[MAXN], pr[MAXN / 2 + 1], pi[MAXN / 2 + 1], pf[MAXN / 2 + 1];
            power_t pw[MAXN / 2 + 1];

            for (int i = 0; i < n; i++) {
#if FIXED_POINT == 32
                if (wide_window) {
                    /* extra variant: the Q30 product s*w doubled to Q31, no rounding at all */
                    in[i] = (int32_t)x[i] * wq[i] * 2;
                    xw[i] = (double)x[i] * wq[i] / 32768.0;
                    xi[i] = (double)x[i] * wd[i];
                    continue;
                }
#endif
                int16_t w = window_sample(x[i], wq[i]);
                in[i] = to_kiss(w);
                xw[i] = (double)w;
                xi[i] = (double)x[i] * wd[i];
            }
            kiss_fftr(cfg, in, out);
            ref_power(xw, n, scale, pr);
            ref_power(xi, n, scale, pi);

            double pmax = 0.0;
            for (int k = 0; k < nb; k++) {
                pw[k] = bin_power(out[k]);
                pf[k] = (double)pw[k];
                if (pr[k] > pmax) pmax = pr[k];
                st.pow_fix += pf[k];
                st.pow_ref += pr[k];
                if (pr[k] > 0.0) { st.ref_nonzero++; if (pw[k] == 0) st.zero_lost++; }
                else { st.ref_zero++; if (pw[k] != 0) st.spurious++; }
            }

            double snr = frame_snr(pf, pr, nb);
            if (!isnan(snr)) { st.snr_sum += snr; st.snr_frames++; }
            double snri = frame_snr(pf, pi, nb);
            if (!isnan(snri)) { st.snri_sum += snri; st.snri_frames++; }

            if (pmax <= 0.0) continue;
            for (int k = 0; k < nb; k++) {
                if (pr[k] < pmax * 1e-4) continue; /* within 40 dB of the frame maximum */
                double fixed_db = 10.0 * log10(pf[k] > 1.0 ? pf[k] : 1.0); /* 0 counts as 1 */
                st.mae_sum += fabs(fixed_db - 10.0 * log10(pr[k]));
                st.mae_bins++;
            }
            for (int k = kmin; k <= kmax; k++) {
                if (pr[k] < pmax * 1e-3) continue; /* within 30 dB of the frame maximum */
                if (!is_local_max(pr, k)) continue;
                st.peaks_ref++;
                if (is_local_max(pf, k)) st.peaks_kept++;
            }
        }

        /* variant N signal frames snr snr_ideal zero% mae mae_bins peak% peaks gain
         * spurious ref_zero */
        printf("%s\t%d\t%s\t%d\t", wide_window ? VARIANT "-fullwin" : VARIANT, n, sig_names[s], NFRAMES);
        if (st.snr_frames) printf("%.1f\t", st.snr_sum / st.snr_frames); else printf("n/a\t");
        if (st.snri_frames) printf("%.1f\t", st.snri_sum / st.snri_frames); else printf("n/a\t");
        if (st.ref_nonzero) printf("%.2f\t", 100.0 * st.zero_lost / st.ref_nonzero); else printf("n/a\t");
        if (st.mae_bins) printf("%.3f\t%ld\t", st.mae_sum / st.mae_bins, st.mae_bins);
        else printf("n/a\t0\t");
        if (st.peaks_ref) printf("%.1f\t%ld\t", 100.0 * st.peaks_kept / st.peaks_ref, st.peaks_ref);
        else printf("n/a\t0\t");
        if (st.pow_ref > 0.0) printf("%+.4f\t", 10.0 * log10(st.pow_fix / st.pow_ref)); else printf("n/a\t");
        printf("%ld\t%ld\n", st.spurious, st.ref_zero);
    }
    kiss_fftr_free(cfg);
}

/* ------------------------------------------------------------------ self test */

static int selftest(void)
{
    int bad = 0;
    for (int n = 512; n <= 1024; n *= 2) {
        double re[MAXN], im[MAXN], x[MAXN];
        rng_seed(99);
        for (int i = 0; i < n; i++) { x[i] = rng_gauss() * 1000.0; re[i] = x[i]; im[i] = 0.0; }
        ref_fft(re, im, n);
        double maxerr = 0.0, maxmag = 0.0;
        for (int k = 0; k < n; k++) {
            long double sr = 0.0L, si = 0.0L;
            for (int i = 0; i < n; i++) {
                const long double pi = 3.14159265358979323846264338327950288L;
                long double ph = -2.0L * pi * (long double)((long)i * k % n) / n;
                sr += x[i] * cosl(ph);
                si += x[i] * sinl(ph);
            }
            double e = hypot((double)(sr - re[k]), (double)(si - im[k]));
            if (e > maxerr) maxerr = e;
            if (hypot(re[k], im[k]) > maxmag) maxmag = hypot(re[k], im[k]);
        }
        double rel = maxerr / maxmag;
        printf("selftest N=%d: reference FFT vs long-double DFT, max |error| / max |X| = %.2e %s\n",
               n, rel, rel < 1e-12 ? "ok" : "FAIL");
        if (rel >= 1e-12) bad = 1;
    }
    return bad;
}

/* ------------------------------------------------------------------ overflow stress */

/* Full-scale worst cases through the whole front end (window, kiss_fftr, power), meant to run
 * in a -fsanitize=undefined build: any signed overflow in KissFFT's int32 arithmetic aborts.
 * Silent int16 wrap-around (a narrowing conversion, not undefined) is caught by comparing each
 * output with the double reference: the largest error must stay below 64 Q15 output LSB (a wrap
 * would be thousands; KissFFT's Q15 gain bias alone reaches ~7 LSB on a full-scale DC frame). */
static int stress(void)
{
    double worst = 0.0;
    rng_seed(5);
    for (int n = 512; n <= 1024; n *= 2) {
        int32_t wq[MAXN];
        double wd[MAXN];
        make_window(n, wq, wd);
        kiss_fftr_cfg cfg = kiss_fftr_alloc(n, 0, NULL, NULL);
        if (!cfg) return 1;
        for (int t = 0; t < 8; t++) {
            kiss_fft_scalar in[MAXN];
            kiss_fft_cpx out[MAXN / 2 + 1];
            double re[MAXN], im[MAXN];
            for (int i = 0; i < n; i++) {
                int s;
                switch (t) {
                case 0: s = 32767; break;                                   /* DC */
                case 1: s = -32768; break;
                case 2: s = (i & 1) ? -32768 : 32767; break;                /* Nyquist */
                case 3: s = (i / 4) & 1 ? -32768 : 32767; break;            /* square, fs/8 */
                case 4: s = i < n / 2 ? 32767 : -32768; break;              /* step */
                case 5: s = (int)lrint(32767.0 * cos(2.0 * M_PI * 37 * i / n)); break; /* bin-centred */
                case 6: s = (int)lrint(32767.0 * sin(M_PI / 2 * i + 0.3)); break;      /* fs/4 */
                default: s = (rng_u32() & 1) ? 32767 : -32768; break;       /* random +-full scale */
                }
                int16_t w = window_sample((int16_t)s, wq[i]);
                in[i] = to_kiss(w);
                re[i] = w;
                im[i] = 0.0;
            }
            kiss_fftr(cfg, in, out);
            ref_fft(re, im, n);
            for (int k = 0; k <= n / 2; k++) {
                /* error in units of a Q15 output LSB (X / N) */
                double er = (double)out[k].r / INPUT_SCALE - re[k] / n;
                double ei = (double)out[k].i / INPUT_SCALE - im[k] / n;
                double e = hypot(er, ei);
                if (e > worst) worst = e;
            }
            power_t acc = 0;
            for (int k = 0; k <= n / 2; k++) acc |= bin_power(out[k]);
            sink += (int64_t)(acc & 1);
        }
        kiss_fftr_free(cfg);
    }
    printf("stress %s: largest |X_fixed - X/N| over full-scale frames = %.3g Q15 LSB %s\n",
           VARIANT, worst, worst < 64.0 ? "ok" : "FAIL");
    return worst < 64.0 ? 0 : 1;
}

/* ------------------------------------------------------------------ cost probe */

static int bench(int n, long k, int whole_frame)
{
    kiss_fftr_cfg cfg = kiss_fftr_alloc(n, 0, NULL, NULL);
    if (!cfg) return 1;
    static int16_t audio[MAXN + HOP * 64];
    const int alen = n + HOP * 63;
    rng_seed(7);
    for (int i = 0; i < alen; i++) audio[i] = (int16_t)lrint(3000.0 * rng_gauss());
    int32_t wq[MAXN];
    double wd[MAXN];
    make_window(n, wq, wd);
    kiss_fft_scalar in[MAXN];
    kiss_fft_cpx out[MAXN / 2 + 1];
    for (int i = 0; i < n; i++) in[i] = to_kiss(window_sample(audio[i], wq[i]));

    int64_t acc = 0;
    if (!whole_frame) {
        for (long r = 0; r < k; r++) {
            kiss_fftr(cfg, in, out);
            acc += out[1].r;
        }
    } else {
        uint8_t logs[MAXN / 2 + 1];
        for (long r = 0; r < k; r++) {
            const int16_t *x = audio + (r & 63) * HOP;
            for (int i = 0; i < n; i++) in[i] = to_kiss(window_sample(x[i], wq[i]));
            kiss_fftr(cfg, in, out);
            for (int b = 0; b <= n / 2; b++) logs[b] = (uint8_t)ilog2p(bin_power(out[b]));
            acc += logs[r % (n / 2 + 1)];
        }
    }
    sink = acc;
    kiss_fftr_free(cfg);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "prec") == 0) {
        static int16_t sig[NSIG][SIGLEN];
        make_signals(sig);
        run_precision(512, sig);
        run_precision(1024, sig);
#if FIXED_POINT == 32
        wide_window = 1;
        run_precision(512, sig);
        run_precision(1024, sig);
#endif
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "selftest") == 0) return selftest();
    if (argc >= 2 && strcmp(argv[1], "stress") == 0) return stress();
    if (argc >= 3 && strcmp(argv[1], "info") == 0) {
        size_t len = 0;
        kiss_fftr_alloc(atoi(argv[2]), 0, NULL, &len);
        printf("%zu\n", len);
        return 0;
    }
    if (argc >= 5 && strcmp(argv[1], "bench") == 0) {
        int n = atoi(argv[2]);
        if (n != 512 && n != 1024) { fprintf(stderr, "N must be 512 or 1024\n"); return 2; }
        return bench(n, atol(argv[3]), strcmp(argv[4], "frame") == 0);
    }
    fprintf(stderr, "usage: %s prec | selftest | stress | info N | bench N K fft|frame\n", argv[0]);
    return 2;
}
