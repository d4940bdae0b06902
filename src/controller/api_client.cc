#include "controller/api_client.h"

#include <httplib.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/http_error.h"
#include "controller/tokens.h"

namespace aegis::controller {

std::string Reply::Error() const {
  if (status >= 200 && status < 300) return "";
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
  return "HTTP " + std::to_string(status);
}

ApiClient::~ApiClient() = default;

Status ApiClient::Create(const ClientOptions& options, std::unique_ptr<ApiClient>* out) {
  const std::string& url = options.url;
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return Status::InvalidArgument("--controller \"" + url + "\" is not http(s)://HOST:PORT");
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https")
    return Status::InvalidArgument("--controller \"" + url + "\": the scheme must be http or https");
  const size_t host_begin = scheme_end + 3;
  const size_t slash = url.find('/', host_begin);
  const std::string authority = url.substr(host_begin, slash == std::string::npos ? std::string::npos : slash - host_begin);
  if (authority.empty()) return Status::InvalidArgument("--controller \"" + url + "\" names no host");
  std::string token;
  if (Status s = ClientToken(options.token_file, &token); !s.ok()) return s;
  std::unique_ptr<ApiClient> c(new ApiClient());
  c->url_ = url;
  c->prefix_ = slash == std::string::npos ? "" : url.substr(slash);
  while (!c->prefix_.empty() && c->prefix_.back() == '/') c->prefix_.pop_back();
  c->client_ = std::make_unique<httplib::Client>(scheme + "://" + authority);
  if (!c->client_->is_valid()) return Status::InvalidArgument("--controller \"" + url + "\" cannot be used");
  c->client_->set_connection_timeout(10, 0);
  c->client_->set_read_timeout(options.timeout_s, 0);
  c->client_->set_write_timeout(options.timeout_s, 0);
  if (!token.empty()) c->client_->set_bearer_token_auth(token);
  if (scheme == "https") {
    std::string ca = options.ca_file;
    if (ca.empty())
      if (const char* env = std::getenv("AEGIS_CA_FILE"); env && *env) ca = env;
    if (!ca.empty()) c->client_->set_ca_cert_path(ca);
    c->client_->enable_server_certificate_verification(true);
  }
  *out = std::move(c);
  return Status::Ok();
}

Status ApiClient::Call(const std::string& method, const std::string& path, const std::string& body, Reply* reply) {
  const std::string full = prefix_ + path;
  if (method != "GET" && method != "POST" && method != "PUT") return Status::InvalidArgument("unsupported method " + method);
  httplib::Result r = method == "GET"    ? client_->Get(full.c_str())
                      : method == "POST" ? client_->Post(full.c_str(), body, "application/json")
                                         : client_->Put(full.c_str(), body, "application/json");
  if (!r) return Status::Unavailable("cannot reach the controller at " + url_ + ": " + DescribeHttpError(r.error()));
  reply->status = r->status;
  reply->body = r->body;
  return Status::Ok();
}

}  // namespace aegis::controller
