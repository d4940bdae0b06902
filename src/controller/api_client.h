// The client side of the controller's API, for the `aegis jobs|status|incidents` commands
// and the tests: a base URL (http:// or https://, with an optional path prefix), a bearer
// token (--token-file, else $AEGIS_TOKEN), optional CA file for HTTPS. One request at a
// time; not thread-safe.
#pragma once
#include <memory>
#include <string>

#include "common/status.h"

namespace httplib {
class Client;
}

namespace aegis::controller {

struct ClientOptions {
  std::string url;         // "http://127.0.0.1:8470"
  std::string token_file;  // empty: $AEGIS_TOKEN
  std::string ca_file;     // HTTPS: trust this CA (else the system's); empty: $AEGIS_CA_FILE
  int timeout_s = 60;
};

struct Reply {
  int status = 0;
  std::string body;
  // The API's error message ({"error": ...}) when status is not 2xx, else "".
  std::string Error() const;
};

class ApiClient {
 public:
  // InvalidArgument for a URL that is not http(s)://HOST[:PORT][/prefix]; token file errors.
  static Status Create(const ClientOptions& options, std::unique_ptr<ApiClient>* out);
  ~ApiClient();
  // Unavailable (naming the URL) when the controller cannot be reached; otherwise ok, with
  // whatever status the controller answered.
  Status Call(const std::string& method, const std::string& path, const std::string& body, Reply* reply);
  const std::string& url() const { return url_; }

 private:
  ApiClient() = default;
  std::string url_, prefix_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace aegis::controller
