// The paged port list's rows, made when a node is published (contract in port_list.h).
#include "collector/readmodel/port_list.h"

namespace rdmascope::collector {

using nlohmann::json;

namespace {

std::string TextOf(const json& row, const char* key) {
  auto it = row.find(key);
  return it != row.end() && it->is_string() ? it->get<std::string>() : std::string();
}

int64_t IntOf(const json& row, const char* key, int64_t absent) {
  auto it = row.find(key);
  return it != row.end() && it->is_number_integer() ? it->get<int64_t>() : absent;
}

// "gid type ndev" of every GID, space separated.
std::string GidsText(const json& row) {
  std::string out;
  auto it = row.find("gids");
  if (it == row.end() || !it->is_array()) return out;
  for (const json& g : *it) {
    if (!g.is_object()) continue;
    for (const char* k : {"gid", "type", "ndev"}) {
      const std::string v = TextOf(g, k);
      if (v.empty()) continue;
      if (!out.empty()) out.push_back(' ');
      out += v;
    }
  }
  return out;
}

}  // namespace

std::string LowerAscii(const std::string& s) {
  std::string out = s;
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

std::vector<PortListRow> BuildPortList(const json& ports) {
  std::vector<PortListRow> out;
  if (!ports.is_array()) return out;
  out.reserve(ports.size());
  for (const json& p : ports) {
    if (!p.is_object()) continue;
    PortListRow r;
    r.device = TextOf(p, "device");
    r.port = IntOf(p, "port", 0);
    r.state = IntOf(p, "state", PortListRow::kNoState);
    r.fw = TextOf(p, "fw");
    r.device_lc = LowerAscii(r.device);
    r.state_name_lc = LowerAscii(TextOf(p, "state_name"));
    r.gids_lc = LowerAscii(GidsText(p));
    r.fw_lc = LowerAscii(r.fw);
    r.any_lc = r.device_lc + "/" + std::to_string(r.port) + " " + r.state_name_lc + " " +
               LowerAscii(TextOf(p, "phys_state_name")) + " " + r.gids_lc + " " + r.fw_lc + " " +
               LowerAscii(TextOf(p, "link_layer")) + " " + LowerAscii(TextOf(p, "rate_text"));
    r.text = p.dump();
    r.text.pop_back();  // the closing brace: a page appends the request's fields
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rdmascope::collector
