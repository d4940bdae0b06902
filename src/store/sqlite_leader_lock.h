// Leadership for a store in one file (SQLite): an exclusive flock() on a side file. The
// kernel releases it when the holder's process ends, however it ends, so a standby's next
// TryAcquire succeeds at once. The descriptor is close-on-exec (a drain command the
// leader runs does not inherit leadership); a child forked without exec would keep it.
// The holder's pid is written into the file for people looking.
#pragma once
#include <memory>
#include <string>

#include "store/store.h"

namespace aegis::store {

std::unique_ptr<LeaderLock> NewFileLeaderLock(std::string path);

}  // namespace aegis::store
