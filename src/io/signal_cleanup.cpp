#include "io/signal_cleanup.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace attn::io {

namespace {

constexpr int kSlots = 64;
constexpr std::size_t kPathMax = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Slot states: free -> claimed (path being copied) -> registered -> free. The handler reads
// only registered slots; lock-free atomics on int are async-signal-safe.
enum : int { kFree = 0, kClaimed = 1, kRegistered = 2 };
std::atomic<int> g_state[kSlots];
char g_paths[kSlots][kPathMax];

static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void remove_temporaries_and_die(int sig) {
    const int saved_errno = errno;
    for (int k = 0; k < kSlots; ++k)
        if (g_state[k].load() == kRegistered) ::unlink(g_paths[k]);
    // Die of the signal itself: default disposition, unblock (it is blocked while its handler
    // runs), raise. The exit status a parent sees is "killed by sig" (shell: 128 + sig).
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(sig);
    errno = saved_errno;
    ::_exit(128 + sig);  // not reached: the default action of all three ends the process
}

sigset_t cleanup_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals) sigaddset(&set, sig);
    return set;
}

}  // namespace

void install_signal_cleanup() {
    for (int sig : kSignals) {
        struct sigaction old {};
        if (::sigaction(sig, nullptr, &old) != 0) continue;
        if (old.sa_handler == SIG_IGN || old.sa_handler == remove_temporaries_and_die) continue;
        struct sigaction sa {};
        sa.sa_handler = remove_temporaries_and_die;
        sa.sa_mask = cleanup_signals();  // one cleanup at a time
        ::sigaction(sig, &sa, nullptr);
    }
}

int register_temporary(const char* path) {
    const std::size_t n = std::strlen(path);
    if (n >= kPathMax) return -1;
    for (int k = 0; k < kSlots; ++k) {
        int expected = kFree;
        if (!g_state[k].compare_exchange_strong(expected, kClaimed)) continue;
        std::memcpy(g_paths[k], path, n + 1);
        g_state[k].store(kRegistered);
        return k;
    }
    return -1;
}

void unregister_temporary(int slot) {
    if (slot >= 0 && slot < kSlots) g_state[slot].store(kFree);
}

BlockCleanupSignals::BlockCleanupSignals() {
    const sigset_t set = cleanup_signals();
    ::pthread_sigmask(SIG_BLOCK, &set, &saved_);
}

BlockCleanupSignals::~BlockCleanupSignals() {
    ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr);
}

}  // namespace attn::io
