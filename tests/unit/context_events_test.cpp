// What an async event names (probes/context_events.h) and how a rail's
// prober device keeps the failure events for their sessions
// (probes/rail_device.h), with events made by hand: no device needed.
#include <gtest/gtest.h>

#include "probes/context_events.h"
#include "probes/rail_device.h"

namespace rdmascope::probes {
namespace {

ibv_async_event QpEvent(ibv_event_type t, ibv_qp* qp) {
  ibv_async_event ev{};
  ev.event_type = t;
  ev.element.qp = qp;
  return ev;
}

TEST(ContextEvents, QpAndCqFailuresNameTheirObject) {
  ibv_qp qp{};
  qp.qp_num = 17;
  ContextEvent fatal = DescribeAsyncEvent(QpEvent(IBV_EVENT_QP_FATAL, &qp));
  EXPECT_EQ(fatal.type, "QP_FATAL");
  EXPECT_EQ(fatal.on, ContextEvent::On::kQp);
  EXPECT_EQ(fatal.qpn, 17u);
  EXPECT_TRUE(fatal.failure);
  EXPECT_FALSE(fatal.last);
  for (ibv_event_type t : {IBV_EVENT_QP_REQ_ERR, IBV_EVENT_QP_ACCESS_ERR})
    EXPECT_TRUE(DescribeAsyncEvent(QpEvent(t, &qp)).failure) << AsyncEventName(t);
  // News about a QP is not a failure: every RC QP reports COMM_EST.
  ContextEvent est = DescribeAsyncEvent(QpEvent(IBV_EVENT_COMM_EST, &qp));
  EXPECT_EQ(est.on, ContextEvent::On::kQp);
  EXPECT_EQ(est.qpn, 17u);
  EXPECT_FALSE(est.failure);

  ibv_cq cq{};
  ibv_async_event cq_err{};
  cq_err.event_type = IBV_EVENT_CQ_ERR;
  cq_err.element.cq = &cq;
  ContextEvent c = DescribeAsyncEvent(cq_err);
  EXPECT_EQ(c.type, "CQ_ERR");
  EXPECT_EQ(c.on, ContextEvent::On::kCq);
  EXPECT_EQ(c.cq, &cq);
  EXPECT_TRUE(c.failure);
}

TEST(ContextEvents, PortEventsCarryThePortAndTheDeviceEndsTheWatch) {
  ibv_async_event port{};
  port.event_type = IBV_EVENT_PORT_ERR;
  port.element.port_num = 2;
  ContextEvent p = DescribeAsyncEvent(port);
  EXPECT_EQ(p.type, "PORT_ERR");
  EXPECT_EQ(p.on, ContextEvent::On::kPort);
  EXPECT_EQ(p.port, 2);
  EXPECT_FALSE(p.failure);
  EXPECT_TRUE(IsPortEvent(IBV_EVENT_GID_CHANGE));
  EXPECT_FALSE(IsPortEvent(IBV_EVENT_CQ_ERR));

  ibv_async_event fatal{};
  fatal.event_type = IBV_EVENT_DEVICE_FATAL;
  ContextEvent d = DescribeAsyncEvent(fatal);
  EXPECT_EQ(d.on, ContextEvent::On::kDevice);
  EXPECT_TRUE(d.failure);
  EXPECT_TRUE(d.last);
  EXPECT_EQ(AsyncEventName(ibv_event_type(31)), "EVENT_31");  // in the enum's range, with no name
}

ContextEvent Failure(ContextEvent::On on, uint32_t qpn, const ibv_cq* cq, uint64_t seq) {
  ContextEvent e;
  e.on = on;
  e.type = on == ContextEvent::On::kQp ? "QP_FATAL" : "CQ_ERR";
  e.qpn = qpn;
  e.cq = cq;
  e.failure = true;
  e.seq = seq;
  return e;
}

TEST(RailDeviceFailures, ASessionTakesOnlyItsOwnNewerEvents) {
  RailDevice d;  // no context: only its bookkeeping
  ibv_cq a{}, b{};
  d.Keep(Failure(ContextEvent::On::kCq, 0, &a, 3));   // CQ `a` of an earlier session
  d.Keep(Failure(ContextEvent::On::kQp, 40, nullptr, 4));
  d.Keep(Failure(ContextEvent::On::kCq, 0, &b, 5));
  ContextEvent news;
  news.on = ContextEvent::On::kQp;
  news.qpn = 41;
  news.seq = 6;
  d.Keep(news);  // not a failure: not kept
  // A session made after event 3 whose CQ has `a`'s address again: the old
  // event is not its own, and is dropped.
  EXPECT_FALSE(d.TakeFailure(99, &a, 4).has_value());
  EXPECT_FALSE(d.TakeFailure(99, &a, 0).has_value());  // gone for good
  // QPN 40's failure, for a session made before it.
  auto q = d.TakeFailure(40, nullptr, 2);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->type, "QP_FATAL");
  EXPECT_EQ(q->seq, 4u);
  EXPECT_FALSE(d.TakeFailure(40, nullptr, 2).has_value());  // taken
  EXPECT_FALSE(d.TakeFailure(41, nullptr, 0).has_value());
  auto c = d.TakeFailure(7, &b, 5);  // its own CQ's, numbered as its birth
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->cq, &b);
  EXPECT_FALSE(d.dead());
}

TEST(RailDeviceFailures, KeepsTheNewestAndALastEventMarksTheDeviceDead) {
  RailDevice d;
  for (uint64_t i = 1; i <= RailDevice::kMaxFailureEvents + 5; ++i)
    d.Keep(Failure(ContextEvent::On::kQp, uint32_t(i), nullptr, i));
  EXPECT_FALSE(d.TakeFailure(1, nullptr, 0).has_value());  // the oldest went first
  EXPECT_TRUE(d.TakeFailure(uint32_t(RailDevice::kMaxFailureEvents + 5), nullptr, 0).has_value());
  ContextEvent removed;
  removed.type = "REMOVED";
  removed.failure = true;
  removed.last = true;
  d.Keep(removed);
  EXPECT_TRUE(d.dead());
}

}  // namespace
}  // namespace rdmascope::probes
