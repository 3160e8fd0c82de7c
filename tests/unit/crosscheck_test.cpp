// The lab's inventory cross-check must agree on a matching pair and report
// every single-field difference.
#include <gtest/gtest.h>

#include "tests/labcheck/inventory_crosscheck.h"

namespace rdmascope::labcheck {
namespace {

const char kDevinfo[] =
    "hca_id:\trxe0\n"
    "\ttransport:\t\t\tInfiniBand (0)\n"
    "\tfw_ver:\t\t\t\t0.0.0\n"
    "\tnode_guid:\t\t\t5054:00ff:fe12:3456\n"
    "\tphys_port_cnt:\t\t\t1\n"
    "\t\tport:\t1\n"
    "\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n"
    "\t\t\tmax_mtu:\t\t4096 (5)\n"
    "\t\t\tactive_mtu:\t\t1024 (3)\n"
    "\t\t\tsm_lid:\t\t\t0\n"
    "\t\t\tport_lid:\t\t0\n"
    "\t\t\tport_lmc:\t\t0x00\n"
    "\t\t\tlink_layer:\t\tEthernet\n"
    "\t\t\tphys_state:\t\tLINK_UP (5)\n"
    "\t\t\tGID[  0]:\t\tfe80::5054:ff:fe12:3456, RoCE v2\n"
    "\t\t\tGID[  1]:\t\t::ffff:192.168.77.1, RoCE v2\n"
    "\t\t\tGID[  2]:\t\tfe80:0000:0000:0000:5054:00ff:fe12:3456, RoCE v1\n";

nlohmann::json Ports() {
  return nlohmann::json::parse(R"({"devices":[{"name":"rxe0","node_guid":"5054:00ff:fe12:3456","ports":[
    {"port":1,"state":{"number":4,"name":"ACTIVE"},"phys_state":{"number":5,"name":"LinkUp"},
     "active_mtu":1024,"max_mtu":4096,"link_layer":"Ethernet","lid":0,
     "gids":[{"index":0,"gid":"fe80:0000:0000:0000:5054:00ff:fe12:3456","type":"RoCE v2","ndev":"eth0"},
             {"index":1,"gid":"0000:0000:0000:0000:0000:ffff:c0a8:4d01","type":"RoCE v2","ndev":"eth0"},
             {"index":2,"gid":"fe80:0000:0000:0000:5054:00ff:fe12:3456","type":"IB/RoCE v1","ndev":"eth0"}]}]}],
    "warnings":[]})");
}

std::vector<std::string> Check(const nlohmann::json& ports) { return CrossCheck(ParseDevinfo(kDevinfo), ports, {"rxe0"}); }

TEST(CrossCheck, ParsesDevinfo) {
  auto d = ParseDevinfo(kDevinfo);
  ASSERT_EQ(d.size(), 1u);
  ASSERT_EQ(d[0].ports.size(), 1u);
  EXPECT_EQ(d[0].ports[0].state, 4);
  EXPECT_EQ(d[0].ports[0].active_mtu, 1024);
  EXPECT_EQ(d[0].ports[0].max_mtu, 4096);
  ASSERT_EQ(d[0].ports[0].gids.size(), 3u);
  EXPECT_EQ(d[0].ports[0].gids[1].gid, "::ffff:192.168.77.1");
  EXPECT_EQ(d[0].ports[0].gids[1].type, "RoCE v2");
}

TEST(CrossCheck, MatchingPairHasNoDifference) {
  auto diffs = Check(Ports());
  EXPECT_TRUE(diffs.empty()) << diffs[0];
}

struct Alteration {
  const char* pointer;  // JSON pointer into Ports()
  nlohmann::json value;
  const char* expect;   // substring of the reported difference
};

TEST(CrossCheck, EverySingleFieldDifferenceIsReported) {
  const Alteration cases[] = {
      {"/devices/0/node_guid", "5054:00ff:fe12:3457", "node_guid"},
      {"/devices/0/ports/0/state/number", 1, "state"},
      {"/devices/0/ports/0/phys_state/number", 3, "phys_state"},
      {"/devices/0/ports/0/active_mtu", 4096, "active_mtu"},
      {"/devices/0/ports/0/max_mtu", 2048, "max_mtu"},
      {"/devices/0/ports/0/link_layer", "InfiniBand", "link_layer"},
      {"/devices/0/ports/0/lid", 7, "lid"},
      {"/devices/0/ports/0/gids/1/gid", "0000:0000:0000:0000:0000:ffff:c0a8:4d02", "GID[1] value"},
      {"/devices/0/ports/0/gids/0/type", "IB/RoCE v1", "GID[0] type"},
      {"/devices/0/ports/0/active_mtu", nullptr, "active_mtu"},
  };
  for (const auto& c : cases) {
    nlohmann::json altered = Ports();
    altered[nlohmann::json::json_pointer(c.pointer)] = c.value;
    auto diffs = Check(altered);
    ASSERT_EQ(diffs.size(), 1u) << c.pointer;
    EXPECT_NE(diffs[0].find(c.expect), std::string::npos) << diffs[0];
  }
}

TEST(CrossCheck, MissingAndExtraGidsAndDevicesAreReported) {
  nlohmann::json fewer = Ports();
  fewer["/devices/0/ports/0/gids"_json_pointer].erase(2);
  EXPECT_EQ(Check(fewer).size(), 1u);
  nlohmann::json more = Ports();
  more["/devices/0/ports/0/gids"_json_pointer].push_back({{"index", 9}, {"gid", "fe80::1"}, {"type", "RoCE v2"}});
  EXPECT_EQ(Check(more).size(), 1u);
  EXPECT_EQ(CrossCheck(ParseDevinfo(kDevinfo), Ports(), {"rxe1"}).size(), 1u);
}

}  // namespace
}  // namespace rdmascope::labcheck
