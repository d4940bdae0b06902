// The helpers of env.h built on any Env.
#include "env/env.h"

namespace aegis {

namespace {

std::string DirOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status ReadFileToString(Env* env, const std::string& path, size_t max_bytes, std::string* out) {
  out->clear();
  std::unique_ptr<SequentialFile> file;
  if (Status s = env->NewSequentialFile(path, &file); !s.ok()) return s;
  char buf[65536];
  for (;;) {
    size_t got = 0;
    if (Status s = file->Read(sizeof buf, buf, &got); !s.ok()) return s;
    if (got == 0) return Status::Ok();
    out->append(buf, got);
    if (out->size() > max_bytes)
      return Status::ResourceExhausted(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
}

Status WriteFileAtomically(Env* env, const std::string& path, std::string_view content, bool sync, unsigned mode) {
  const std::string tmp = path + ".tmp";
  std::unique_ptr<WritableFile> file;
  if (Status s = env->NewWritableFile(tmp, mode, &file); !s.ok()) return s;
  Status s = file->WriteAt(0, content);
  if (s.ok() && sync) s = file->Sync();
  if (s.ok()) s = file->Close();
  file.reset();
  if (s.ok()) s = env->RenameFile(tmp, path);
  if (!s.ok()) {
    (void)env->RemoveFile(tmp);  // best effort: the error that matters is s
    return s;
  }
  return sync ? env->SyncDir(DirOf(path)) : Status::Ok();
}

Status CreateDirs(Env* env, const std::string& path, unsigned mode) {
  if (path.empty()) return Status::InvalidArgument("empty directory name");
  for (size_t pos = 0; pos <= path.size();) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    const std::string partial = path.substr(0, slash);
    pos = slash + 1;
    if (partial.empty()) continue;
    if (Status s = env->CreateDir(partial, mode); !s.ok()) return s;
  }
  return Status::Ok();
}

}  // namespace aegis
