#include "common/counter_rates.h"

#include <string>
#include <unordered_map>

#include "common/counter_rules.h"
#include "common/ib_encoding.h"

namespace rdmascope {
namespace {

std::string Text(const nlohmann::json& sample, const char* key) {
  auto it = sample.find(key);
  return it != sample.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// node, device, port, kind, name: one series.
std::string SeriesKey(const nlohmann::json& sample) {
  std::string key = Text(sample, "node");
  for (const char* part : {"device", "kind", "name"}) key.append(1, '\0').append(Text(sample, part));
  auto port = sample.find("port");
  if (port != sample.end()) key.append(1, '\0').append(port->dump());
  return key;
}

CounterReading ReadingOf(const nlohmann::json& sample) {
  CounterReading r;
  auto value = sample.find("value");
  const bool counted = value != sample.end() && (value->is_number_unsigned() ||
                                                 (value->is_number_integer() && value->get<int64_t>() >= 0));
  if (counted) r.value = value->get<uint64_t>();
  r.boot_id = Text(sample, "boot_id");
  r.instance = Text(sample, "instance");
  auto at = sample.find("sampled_at_ms");
  if (at != sample.end() && at->is_number_integer()) r.at_ms = at->get<int64_t>();
  return r;
}

}  // namespace

void AddCounterRates(nlohmann::json& samples) {
  std::unordered_map<std::string, CounterReading> latest;  // by series
  for (nlohmann::json& sample : samples) {
    const std::string kind = Text(sample, "kind"), name = Text(sample, "name");
    const CounterReading current = ReadingOf(sample);
    auto [prev, first] = latest.try_emplace(SeriesKey(sample));
    const CounterDelta d =
        ComputeCounterDelta(kind, name, first ? std::nullopt : std::optional<CounterReading>(prev->second), current);
    prev->second = current;
    const bool words = ib::DataWordCounterOf(name) != nullptr;
    if (d.per_second)
      sample["rate"] = *d.per_second * (words ? double(ib::kDataWordBytes) : 1.0);
    else
      sample["rate"] = nullptr;
    sample["rate_unit"] = words ? "bytes/s" : "/s";
  }
}

}  // namespace rdmascope
