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
    Status fault = env_->BeforeWrite(path_, data.size(), &allowed);
    if (allowed > 0) {
      if (Status s = file_->WriteAt(offset, data.substr(0, allowed)); !s.ok()) return s;
    }
    return fault;
  }
  Status Sync() override {
    if (Status fault = env_->BeforeSync(path_); !fault.ok()) return fault;
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
    if (Status fault = env_->BeforeRead(path_); !fault.ok()) return fault;
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
    if (Status fault = env_->BeforeRead(path_); !fault.ok()) return fault;
    return file_->Read(n, scratch, got);
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  std::unique_ptr<SequentialFile> file_;
};

}  // namespace

FaultInjectionEnv::FaultInjectionEnv(Env* target) : EnvWrapper(target) {}

void FaultInjectionEnv::FailWrites(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = n;
}

void FaultInjectionEnv::FailSyncs(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_syncs_ = n;
}

void FaultInjectionEnv::FailReads(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  fail_reads_ = n;
}

void FaultInjectionEnv::SetSpaceLeft(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  space_limited_ = true;
  space_left_ = bytes;
}

void FaultInjectionEnv::ClearFaults() {
  std::lock_guard<std::mutex> lock(mu_);
  fail_writes_ = fail_syncs_ = fail_reads_ = 0;
  space_limited_ = false;
}

FaultInjectionEnv::Injected FaultInjectionEnv::injected() const {
  std::lock_guard<std::mutex> lock(mu_);
  return injected_;
}

Status FaultInjectionEnv::BeforeWrite(const std::string& path, uint64_t n, uint64_t* allowed) {
  std::lock_guard<std::mutex> lock(mu_);
  *allowed = n;
  if (fail_writes_ > 0) {
    --fail_writes_;
    ++injected_.writes;
    *allowed = 0;
    return Status::IOError(InjectedMessage("cannot write", path, EIO));
  }
  if (space_limited_) {
    if (n <= space_left_) {
      space_left_ -= n;
      return Status::Ok();
    }
    *allowed = space_left_;
    space_left_ = 0;
    ++injected_.disk_full;
    return Status::ResourceExhausted(InjectedMessage("cannot write", path, ENOSPC));
  }
  return Status::Ok();
}

Status FaultInjectionEnv::BeforeSync(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_syncs_ <= 0) return Status::Ok();
  --fail_syncs_;
  ++injected_.syncs;
  return Status::IOError(InjectedMessage("cannot fdatasync", path, EIO));
}

Status FaultInjectionEnv::BeforeRead(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (fail_reads_ <= 0) return Status::Ok();
  --fail_reads_;
  ++injected_.reads;
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

}  // namespace aegis
