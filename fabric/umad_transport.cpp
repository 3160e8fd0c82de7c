#include "fabric/umad_transport.h"

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstring>

namespace rdmascope::fabric {
namespace {

std::string Errno(int rc) { return std::strerror(rc < 0 ? -rc : rc); }

}  // namespace

Result<std::unique_ptr<UmadTransport>> UmadTransport::Open(const std::string& ca, int port) {
  if (umad_init() < 0) return Result<std::unique_ptr<UmadTransport>>::Error("umad_init failed: is ib_umad loaded?");
  std::string where = (ca.empty() ? std::string("the first CA") : "CA " + ca) + " port " +
                      (port == 0 ? std::string("(first active)") : std::to_string(port));
  umad_port_t info;
  std::memset(&info, 0, sizeof(info));
  int rc = umad_get_port(ca.empty() ? nullptr : ca.c_str(), port, &info);
  if (rc < 0)
    return Result<std::unique_ptr<UmadTransport>>::Error("umad_get_port(" + where + "): " + Errno(rc) +
                                                         " (check the device name and port, rdmactl ports)");
  std::unique_ptr<UmadTransport> t(new UmadTransport());
  t->ca_name_ = info.ca_name;
  t->port_number_ = info.portnum;
  t->sm_lid_ = static_cast<uint32_t>(info.sm_lid);
  umad_release_port(&info);
  t->portid_ = umad_open_port(t->ca_name_.c_str(), t->port_number_);
  if (t->portid_ < 0)
    return Result<std::unique_ptr<UmadTransport>>::Error(
        "umad_open_port(" + where + "): " + Errno(t->portid_) +
        " (needs read/write access to /dev/infiniband/umad*: run as root or grant it)");
  t->smp_agent_ = umad_register(t->portid_, IB_SMI_DIRECT_CLASS, 1, 0, nullptr);
  t->pma_agent_ = umad_register(t->portid_, IB_PERFORMANCE_CLASS, 1, 0, nullptr);
  t->sa_agent_ = umad_register(t->portid_, IB_SA_CLASS, 2, 0, nullptr);  // single-record Gets: no RMPP
  if (t->smp_agent_ < 0 || t->pma_agent_ < 0)  // without an SA agent only SA queries fail
    return Result<std::unique_ptr<UmadTransport>>::Error("umad_register on " + t->ca_name_ + " port " +
                                                         std::to_string(t->port_number_) + " failed");
  t->send_buf_.assign(umad_size() + kMadSize, 0);
  t->recv_buf_.assign(umad_size() + kMadSize, 0);
  return t;
}

UmadTransport::~UmadTransport() {
  if (portid_ >= 0) {
    if (smp_agent_ >= 0) umad_unregister(portid_, smp_agent_);
    if (pma_agent_ >= 0) umad_unregister(portid_, pma_agent_);
    if (sa_agent_ >= 0) umad_unregister(portid_, sa_agent_);
    umad_close_port(portid_);
  }
}

Status UmadTransport::Send(const OutgoingMad& mad, int timeout_ms) {
  void* umad = send_buf_.data();
  std::memset(umad, 0, umad_size());
  std::memcpy(umad_get_mad(umad), mad.mad.data(), kMadSize);
  int agent;
  if (mad.cls == MadClass::kDirectedSmp) {
    umad_set_addr(umad, 0xffff, 0, 0, 0);
    agent = smp_agent_;
  } else if (mad.cls == MadClass::kSubnAdm) {
    if (sa_agent_ < 0)
      return Status::Error("umad_register of the subnet administration class on " + ca_name_ + " failed");
    if (sm_lid_ == 0)
      return Status::Error(ca_name_ + " port " + std::to_string(port_number_) +
                           " knows no subnet manager LID: is a subnet manager running?");
    umad_set_addr(umad, static_cast<int>(sm_lid_), 1, 0, IB_DEFAULT_QP1_QKEY);
    agent = sa_agent_;
  } else {
    umad_set_addr(umad, static_cast<int>(mad.dlid), 1, 0, IB_DEFAULT_QP1_QKEY);
    agent = pma_agent_;
  }
  int rc = umad_send(portid_, agent, umad, kMadSize, timeout_ms, 0);
  if (rc < 0) return Status::Error("umad_send on " + ca_name_ + " port " + std::to_string(port_number_) + ": " + Errno(rc));
  return Status::Ok();
}

Result<bool> UmadTransport::Receive(IncomingMad* out, int wait_ms) {
  int rc = umad_poll(portid_, wait_ms);
  if (rc == -ETIMEDOUT) return false;
  if (rc < 0) return Result<bool>::Error("umad_poll on " + ca_name_ + ": " + Errno(rc));
  int len = kMadSize;
  void* umad = recv_buf_.data();
  rc = umad_recv(portid_, umad, &len, 0);
  if (rc < 0) {
    if (rc == -EWOULDBLOCK || rc == -EINTR) return false;
    return Result<bool>::Error("umad_recv on " + ca_name_ + ": " + Errno(rc));
  }
  out->status = umad_status(umad);
  std::memcpy(out->mad.data(), umad_get_mad(umad), kMadSize);
  return true;
}

}  // namespace rdmascope::fabric
