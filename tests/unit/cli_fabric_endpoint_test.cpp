// rdmactl fabric path's ends: a LID, a node or port GUID, or an exact node
// description, resolved on a swept in-memory subnet; what is ambiguous or
// unknown is an error saying so.
#include <gtest/gtest.h>

#include <string>

#include "cli/fabric_endpoint.h"
#include "fabric/sweep.h"
#include "tests/fabric/fake_subnet.h"

namespace rdmascope::cli {
namespace {

using namespace rdmascope::fabric;

// The small subnet plus hca4, cabled from both of its ports (1: sw1[6], 2: sw2[2]).
Fabric Swept(bool twin_names) {
  testing::FakeSubnet s = testing::SmallSubnet(true);
  int h4 = s.Add({"hca4", 1, 0x106, 2, 20, {}, {}});
  s.Link(h4, 1, 1, 6);
  s.Link(h4, 2, 2, 2);
  if (twin_names) s.nodes[4].name = "hca2";
  s.RouteShortest();
  SweepOptions o;
  o.counters = false;
  o.routes = true;
  Result<Fabric> f = SweepSubnet(s, o);
  EXPECT_TRUE(f.ok());
  return f.value();
}

Endpoint Resolve(const Fabric& f, const std::string& text) {
  RouteTable routes(f);
  Result<Endpoint> e = ResolveEndpoint(f, routes, text);
  EXPECT_TRUE(e.ok()) << text << ": " << e.status().message();
  return e.ok() ? e.value() : Endpoint{};
}

std::string Error(const Fabric& f, const std::string& text) {
  RouteTable routes(f);
  Result<Endpoint> e = ResolveEndpoint(f, routes, text);
  EXPECT_FALSE(e.ok()) << text;
  return e.ok() ? "" : e.status().message();
}

TEST(FabricEndpoint, ALidIsThePortOrSwitchOwningIt) {
  Fabric f = Swept(false);
  Endpoint e = Resolve(f, "3");
  ASSERT_NE(e.node, nullptr);
  EXPECT_EQ(e.node->description, "hca3");
  EXPECT_EQ(e.port, 1);
  e = Resolve(f, "11");
  EXPECT_EQ(e.node->description, "sw2");
  EXPECT_EQ(e.port, 0);
  e = Resolve(f, "21");  // hca4's second port
  EXPECT_EQ(e.node->description, "hca4");
  EXPECT_EQ(e.port, 2);
  EXPECT_NE(Error(f, "99").find("no port in the sweep has LID 99"), std::string::npos);
  EXPECT_NE(Error(f, "0").find("not a unicast LID"), std::string::npos);
}

TEST(FabricEndpoint, ANodeGuidIsACasFirstActivePortAndAPortGuidThatPort) {
  Fabric f = Swept(false);
  Endpoint e = Resolve(f, "0x106");
  EXPECT_EQ(e.node->description, "hca4");
  EXPECT_EQ(e.port, 1);
  EXPECT_EQ(e.lid, 20u);
  e = Resolve(f, "0x0000000000000108");  // hca4 port 2's GUID (the fake: node GUID + port)
  EXPECT_EQ(e.port, 2);
  EXPECT_EQ(e.lid, 21u);
  e = Resolve(f, "0x201");
  EXPECT_EQ(e.node->description, "sw2");
  EXPECT_EQ(e.lid, 11u);
  for (FabricNode& n : f.nodes)
    if (n.description == "hca4") n.ports.at(0).state = 1;  // port 1 DOWN: the node is port 2
  e = Resolve(f, "0x106");
  EXPECT_EQ(e.port, 2);
  EXPECT_NE(Error(f, "0x999").find("no node or port in the sweep has GUID 0x0000000000000999"), std::string::npos);
  EXPECT_NE(Error(f, "0xnothex").find("is not a GUID"), std::string::npos);
}

TEST(FabricEndpoint, ADescriptionMatchesExactlyAndOnce) {
  Fabric f = Swept(false);
  Endpoint e = Resolve(f, "hca3");
  EXPECT_EQ(e.node->guid, 0x104u);
  EXPECT_EQ(e.lid, 3u);
  EXPECT_NE(Error(f, "hca").find("no node in the sweep is described \"hca\""), std::string::npos);
  Fabric twins = Swept(true);
  std::string err = Error(twins, "hca2");
  EXPECT_NE(err.find("2 nodes are described \"hca2\""), std::string::npos) << err;
  EXPECT_NE(err.find("0x0000000000000102"), std::string::npos) << err;
  EXPECT_NE(err.find("0x0000000000000104"), std::string::npos) << err;
}

}  // namespace
}  // namespace rdmascope::cli
