// Leadership for a store in PostgreSQL: the session advisory lock (kAdvisoryLockClass,
// kLeaderLockId) held on a connection of its own, application_name "aegis-leader". The
// server releases it when the session ends: at once for a killed process (its socket is
// closed), within about 15 s for a lost machine (keepalives, pg_connection.h). IsHeld()
// asks the server whether this session still holds it (statement timeout 5 s), and a
// connection found dead means leadership lost; TryAcquire() then reconnects.
#pragma once
#include <memory>
#include <string>

#include "store/store.h"

namespace aegis::store {

std::unique_ptr<LeaderLock> NewPgLeaderLock(std::string url);

}  // namespace aegis::store
