#include "common/counter_thresholds.h"

namespace rdmascope {

CounterThresholds DefaultCounterThresholds() {
  return {
      {"symbol_error", 10},
      {"link_error_recovery", 10},
      {"link_downed", 10},
      {"port_rcv_errors", 10},
      {"port_rcv_remote_physical_errors", 100},
      {"port_rcv_switch_relay_errors", 100},
      {"port_xmit_discards", 100},
      {"port_xmit_constraint_errors", 100},
      {"port_rcv_constraint_errors", 100},
      {"local_link_integrity_errors", 10},
      {"excessive_buffer_overrun_errors", 10},
      {"VL15_dropped", 100},
  };
}

CounterThresholds DefaultCongestionThresholds() {
  // A million ticks a second: a few tenths of a percent of the time waiting
  // at a tick of a few nanoseconds (the tick is the device's).
  return {{"port_xmit_wait", 1000000}};
}

}  // namespace rdmascope
