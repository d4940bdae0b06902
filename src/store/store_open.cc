// Store::Open: picks the backend from the URL's scheme.
#include <string>

#include "common/text.h"
#include "store/pg_backend.h"
#include "store/sql_store.h"
#include "store/sqlite_backend.h"
#include "store/store.h"

namespace aegis::store {

Status Store::Open(std::string_view url, std::unique_ptr<Store>* out, const StoreOptions& options) {
  out->reset();
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("store URL \"" + SanitizeForOutput(url, 200) + "\": " + std::string(why) +
                                   " (expected sqlite:PATH or postgresql://...)");
  };
  if (url.find('\0') != std::string_view::npos) return bad("contains a NUL byte");
  std::unique_ptr<SqlBackend> backend;
  Status st;
  if (StartsWith(url, "sqlite:")) {
    std::string_view path = url.substr(7);
    if (StartsWith(path, "//")) {  // sqlite:///abs/path: an absolute path after the empty authority
      path.remove_prefix(2);
      if (!StartsWith(path, "/")) return bad("sqlite:// needs an absolute path");
    }
    if (path.empty()) return bad("no file path");
    st = OpenSqliteBackend(std::string(path), options, &backend);
  } else if (StartsWith(url, "postgresql://") || StartsWith(url, "postgres://")) {
    if (options.pg_pool_size < 1) return Status::InvalidArgument("store: pg_pool_size must be at least 1");
    st = OpenPgBackend(std::string(url), options, &backend);
  } else {
    return bad("unknown scheme");
  }
  if (!st.ok()) return st;
  return SqlStore::Create(std::move(backend), options.env ? options.env : Env::Default(), out);
}

}  // namespace aegis::store
