#include "mapping_guard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

// A process maps one catalog at a time, two while a reload replaces it, a few more in tests.
enum { guard_slots = 32 };

struct guard {
    _Atomic uintptr_t base;
    _Atomic size_t length;
    atomic_int lost;
};

static struct guard guards[guard_slots];
static pthread_mutex_t claiming = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t installing = PTHREAD_ONCE_INIT;
static struct sigaction previous;
static int installed;
static uintptr_t page_size;

// Restores what handled SIGBUS before and lets it act: for a fault, returning re-runs the
// faulting instruction under it; a SIGBUS sent by another process is raised again.
static void pass_on(int signal, siginfo_t *info, void *context) {
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction != NULL) {
        previous.sa_sigaction(signal, info, context);
        return;
    }
    sigaction(SIGBUS, &previous, NULL);
    if (info->si_code <= 0) raise(SIGBUS);
}

static void on_sigbus(int signal, siginfo_t *info, void *context) {
    int saved_errno = errno;
    uintptr_t address = (uintptr_t)info->si_addr;
    if (info->si_code == BUS_ADRERR) {
        for (int i = 0; i < guard_slots; i++) {
            uintptr_t base = atomic_load_explicit(&guards[i].base, memory_order_acquire);
            if (base == 0) continue;
            size_t length = atomic_load_explicit(&guards[i].length, memory_order_relaxed);
            if (address < base || address - base >= length) continue;
            uintptr_t page = address & ~(page_size - 1);
            void *zeros = mmap((void *)page, base + length - page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            if (zeros == (void *)page) {
                atomic_store_explicit(&guards[i].lost, 1, memory_order_release);
                errno = saved_errno;
                return;
            }
            break;
        }
    }
    errno = saved_errno;
    pass_on(signal, info, context);
}

static void install(void) {
    page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_sigbus;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    installed = sigaction(SIGBUS, &action, &previous) == 0;
}

int soundtrace_guard_mapping(const void *base, size_t length) {
    if (base == NULL || length == 0) return -1;
    pthread_once(&installing, install);
    if (!installed) return -1;
    pthread_mutex_lock(&claiming);
    int slot = -1;
    for (int i = 0; i < guard_slots; i++) {
        if (atomic_load_explicit(&guards[i].base, memory_order_relaxed) != 0) continue;
        atomic_store_explicit(&guards[i].lost, 0, memory_order_relaxed);
        atomic_store_explicit(&guards[i].length, length, memory_order_relaxed);
        atomic_store_explicit(&guards[i].base, (uintptr_t)base, memory_order_release);
        slot = i;
        break;
    }
    pthread_mutex_unlock(&claiming);
    return slot;
}

void soundtrace_unguard_mapping(int slot) {
    if (slot < 0 || slot >= guard_slots) return;
    pthread_mutex_lock(&claiming);
    atomic_store_explicit(&guards[slot].base, 0, memory_order_release);
    pthread_mutex_unlock(&claiming);
}

int soundtrace_mapping_lost_pages(int slot) {
    if (slot < 0 || slot >= guard_slots) return 0;
    return atomic_load_explicit(&guards[slot].lost, memory_order_acquire);
}
