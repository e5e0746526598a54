// Temporary files removed on SIGINT, SIGTERM and SIGHUP. OutputFile registers each temporary
// it creates and unregisters it once renamed or removed; on one of these signals the handler
// unlinks every registered path and the process then dies of the same signal, so a shell
// reports the status 128 + n (130, 143, 129), as for a program without a handler.
#pragma once

#include <signal.h>

namespace attn::io {

/// Installs the handler for SIGINT, SIGTERM and SIGHUP (a signal whose disposition is
/// SIG_IGN, e.g. SIGHUP under nohup, stays ignored; any other handler is replaced).
/// Idempotent. OutputFile calls it before it creates each temporary, so calling it from main
/// is optional (it covers a signal before the first output is opened, when there is nothing
/// to remove anyway).
void install_signal_cleanup();

/// Remembers path (copied; at most 4095 bytes) for removal by the handler. Returns a slot for
/// unregister_temporary, or -1 when all 64 slots are taken or the path is too long (the file
/// is then left behind on a signal, nothing worse). Call with the three signals blocked
/// (see BlockCleanupSignals) between creating the file and registering it.
int register_temporary(const char* path);
/// Forgets the path in slot (-1 is ignored).
void unregister_temporary(int slot);

/// Blocks SIGINT, SIGTERM and SIGHUP in this thread for its lifetime, so that creating or
/// renaming a file and (un)registering it happen together or not at all.
class BlockCleanupSignals {
  public:
    BlockCleanupSignals();
    ~BlockCleanupSignals();
    BlockCleanupSignals(const BlockCleanupSignals&) = delete;
    BlockCleanupSignals& operator=(const BlockCleanupSignals&) = delete;

  private:
    sigset_t saved_;  // the mask before
};

}  // namespace attn::io
