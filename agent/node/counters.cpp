#include "agent/node/counters.h"

#include <limits>

#include "agent/node/sysfs_parse.h"
#include "common/ib_encoding.h"

namespace rdmascope {
namespace {

void ReadCounterDir(AttrReader& attrs, const std::string& dir, CounterMap* out) {
  for (const std::string& name : attrs.List(dir)) {
    if (name == "lifespan") continue;
    const std::string rel = dir + "/" + name;
    const ib::DataWordCounter* words = ib::DataWordCounterOf(name);
    const std::string key = words ? std::string(words->bytes) : name;
    auto text = attrs.Text(rel);  // a bad file is warned about inside
    std::optional<uint64_t> value;
    if (text && *text != kNoPmaText) {
      value = ParseU64(*text);
      if (!value) {
        attrs.Warn(rel, "cannot parse \"" + text->substr(0, 40) + "\" as an unsigned 64-bit counter");
      } else if (words) {
        value = ib::DataWordsToBytes(*value);
        if (!value) attrs.Warn(rel, "word count too large to convert to bytes");
      }
    }
    (*out)[key] = value;
  }
}

}  // namespace

void ReadPortCounters(AttrReader& attrs, const std::string& port_dir, Port* port) {
  ReadCounterDir(attrs, port_dir + "/counters", &port->counters);
  ReadCounterDir(attrs, port_dir + "/hw_counters", &port->hw_counters);
}

std::optional<std::string> ReadDeviceInstance(const SysfsReader& fs, const Device& d) {
  auto ino = fs.Inode("class/infiniband/" + d.name);
  if (!ino) return std::nullopt;
  return d.node_guid.value_or("") + "@" + std::to_string(*ino);
}

bool KeepCountersOfOneInstance(AttrReader& attrs, Device* d) {
  const std::optional<std::string> now = ReadDeviceInstance(attrs.fs(), *d);
  if (!d->instance || !now || *now == *d->instance) return true;
  for (Port& p : d->ports) {
    p.counters.clear();
    p.hw_counters.clear();
  }
  attrs.Warn("class/infiniband/" + d->name, "device re-created while its counters were read; counters left out this time");
  return false;
}

}  // namespace rdmascope
