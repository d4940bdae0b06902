#include "env/fault_injection_env.h"

#include <cerrno>
#include <cstring>

namespace aegis {

namespace {

std::string InjectedMessage(std::string_view what, const std::string& path, int err) {
  return std::string(what) + " " + path + ": " + std::strerror(err) + " (injected)";
}

class FaultWritableFile final : public WritableFile {
 public:
  FaultWritableFile(FaultInjectionEnv* env, std::string path, std::unique_ptr<WritableFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}

  Status WriteAt(uint64_t offset, std::string_view data) override {
    uint64_t allowed = data.size();
    Status fault = env_->WriteFault(path_, data.size(), &allowed);
    if (allowed > 0) {
      if (Status s = file_->WriteAt(offset, data.substr(0, allowed)); !s.ok()) return s;
    }
    return fault;
  }
  Status Sync() override {
    if (Status fault = env_->SyncFault(path_); !fault.ok()) return fault;
    return file_->Sync();
  }
  Status Truncate(uint64_t size) override { return file_->Truncate(size); }
  Status Close() override { return file_->Close(); }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<WritableFile> file_;
};

class FaultRandomAccessFile final : public RandomAccessFile {
 public:
  FaultRandomAccessFile(FaultInjectionEnv* env, std::string path, std::unique_ptr<RandomAccessFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}
  Status ReadAt(uint64_t offset, size_t n, char* scratch, size_t* got) override {
    *got = 0;
    if (Status fault = env_->ReadFault(path_); !fault.ok()) return fault;
    return file_->ReadAt(offset, n, scratch, got);
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<RandomAccessFile> file_;
};

class FaultSequentialFile final : public SequentialFile {
 public:
  FaultSequentialFile(FaultInjectionEnv* env, std::string path, std::unique_ptr<SequentialFile> file)
      : env_(env), path_(std::move(path)), file_(std::move(file)) {}
  Status Read(size_t n, char* scratch, size_t* got) override {
    *got = 0;
    if (Status fault = env_->ReadFault(path_); !fault.ok()) return fault;
    return file_->Read(n, scratch, got);
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<SequentialFile> file_;
};

}  // namespace

FaultInjectionEnv::FaultInjectionEnv(Env* target) : EnvWrapper(target) {}

Status FaultInjectionEnv::WriteFault(const std::string& path, uint64_t n, uint64_t* allowed) {
  switch (BeforeWrite(n, allowed)) {
    case Fault::kNone: return Status::Ok();
    case Fault::kIo: return Status::IOError(InjectedMessage("cannot write", path, EIO));
    case Fault::kDiskFull: return Status::ResourceExhausted(InjectedMessage("cannot write", path, ENOSPC));
  }
  return Status::Ok();
}

Status FaultInjectionEnv::SyncFault(const std::string& path) {
  if (BeforeSync() == Fault::kNone) return Status::Ok();
  return Status::IOError(InjectedMessage("cannot fdatasync", path, EIO));
}

Status FaultInjectionEnv::ReadFault(const std::string& path) {
  if (BeforeRead() == Fault::kNone) return Status::Ok();
  return Status::IOError(InjectedMessage("cannot read", path, EIO));
}

Status FaultInjectionEnv::NewWritableFile(const std::string& path, unsigned mode, std::unique_ptr<WritableFile>* out) {
  std::unique_ptr<WritableFile> file;
  if (Status s = target()->NewWritableFile(path, mode, &file); !s.ok()) return s;
  *out = std::make_unique<FaultWritableFile>(this, path, std::move(file));
  return Status::Ok();
}

Status FaultInjectionEnv::ReopenWritableFile(const std::string& path, unsigned mode,
                                             std::unique_ptr<WritableFile>* out) {
  std::unique_ptr<WritableFile> file;
  if (Status s = target()->ReopenWritableFile(path, mode, &file); !s.ok()) return s;
  *out = std::make_unique<FaultWritableFile>(this, path, std::move(file));
  return Status::Ok();
}

Status FaultInjectionEnv::NewRandomAccessFile(const std::string& path, std::unique_ptr<RandomAccessFile>* out) {
  std::unique_ptr<RandomAccessFile> file;
  if (Status s = target()->NewRandomAccessFile(path, &file); !s.ok()) return s;
  *out = std::make_unique<FaultRandomAccessFile>(this, path, std::move(file));
  return Status::Ok();
}

Status FaultInjectionEnv::NewSequentialFile(const std::string& path, std::unique_ptr<SequentialFile>* out) {
  std::unique_ptr<SequentialFile> file;
  if (Status s = target()->NewSequentialFile(path, &file); !s.ok()) return s;
  *out = std::make_unique<FaultSequentialFile>(this, path, std::move(file));
  return Status::Ok();
}

Status FaultInjectionEnv::RemoveFile(const std::string& path) {
  uint64_t size = 0;
  const bool sized = target()->GetFileSize(path, &size).ok();
  Status s = target()->RemoveFile(path);
  if (s.ok() && sized) Freed(size);
  return s;
}

}  // namespace aegis
