// What an HTTP client's failure means, in words an operator can act on, instead of the
// HTTP library's enumerator names ("Connection", "Read", "SSLServerVerification"). For
// the CLI's controller client, the agent's sender and the Prometheus reader alike.
// Header-only: only code that links httplib includes it.
#pragma once
#include <httplib.h>

#include <string>

namespace aegis {

inline std::string DescribeHttpError(httplib::Error e) {
  switch (e) {
    case httplib::Error::Connection: return "connection refused, or no such host or route";
    case httplib::Error::ConnectionTimeout: return "timed out connecting";
    case httplib::Error::Read: return "no answer: the connection was closed or timed out (an https:// server asked over http://?)";
    case httplib::Error::Write: return "the connection broke while sending";
    case httplib::Error::SSLConnection: return "TLS handshake failed (a plain http:// server asked over https://?)";
    case httplib::Error::SSLLoadingCerts: return "cannot load the CA certificates (--ca-file)";
    case httplib::Error::SSLServerVerification:
      return "the server's certificate is not trusted (give its CA with --ca-file) or does not name this address";
    case httplib::Error::Canceled: return "cancelled";
    case httplib::Error::ExceedRedirectCount: return "too many redirects";
    case httplib::Error::Compression: return "cannot decompress the answer";
    case httplib::Error::BindIPAddress: return "cannot bind the local address";
    default: return "HTTP error " + httplib::to_string(e);
  }
}

}  // namespace aegis
