// An HTTP or HTTPS client for the collector, shared by the agent's reporter,
// its pinglist client and rdmactl.
//
// Contract: `scheme_host_port` is "http://HOST:PORT" or "https://HOST:PORT".
// Over HTTPS the collector's certificate and host name are always verified:
// against `ca_file` (PEM) when it is set, else against the system's CA store.
// DescribeHttpError turns a failed request into text that names the cause and,
// for certificate failures, what to check.
#pragma once

#include <memory>
#include <string>

#include <httplib.h>

namespace rdmascope::client {

std::unique_ptr<httplib::Client> MakeCollectorClient(const std::string& scheme_host_port, const std::string& ca_file);

std::string DescribeHttpError(httplib::Error error, const std::string& ca_file);

}  // namespace rdmascope::client
