#include "bench/fleet_storage_pg.h"

#include <cstdio>
#include <string>

namespace rdmascope::collector::bench {

bool PrintPartitions(collector::PgDb& db, const std::string& table, const std::string& when) {
  // Every partition of the table with its rows (0 when empty), in name order.
  auto parts = db.Query(
      "SELECT t.relid::regclass::text, coalesce(n.rows, 0) FROM pg_partition_tree($1::regclass) t "
      "LEFT JOIN (SELECT tableoid, count(*) AS rows FROM " + table + " GROUP BY tableoid) n ON n.tableoid = t.relid "
      "WHERE t.isleaf ORDER BY 1",
      {table});
  if (!parts.ok()) {
    std::printf("%s partitions %s: cannot read them: %s\n", table.c_str(), when.c_str(), parts.status().message().c_str());
    return false;
  }
  std::printf("%s partitions %s: %d\n", table.c_str(), when.c_str(), parts.value().rows());
  for (int r = 0; r < parts.value().rows(); ++r)
    std::printf("  %-40s %lld rows\n", std::string(parts.value().Text(r, 0)).c_str(),
                static_cast<long long>(parts.value().OptInt(r, 1).value_or(0)));
  return true;
}

FleetStorage MeasureFleetStoragePg(collector::PgDb& db, int nodes, double simulated_s,
                                   const collector::RetentionPolicy& policy) {
  FleetStorage s;
  // Top-level tables only: a partitioned one sums its tree (its partitions
  // are not listed again); pg_partition_tree gives nothing for a plain table.
  auto sizes = db.Query(
      "SELECT c.relname, CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_total_relation_size(t.relid)) "
      "FROM pg_partition_tree(c.oid) t) ELSE pg_total_relation_size(c.oid) END::bigint FROM pg_class c "
      "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND pg_table_is_visible(c.oid) "
      "AND c.relnamespace <> 'pg_catalog'::regnamespace AND c.relnamespace <> 'information_schema'::regnamespace");
  if (!sizes.ok()) {
    s.error = "table sizes: " + sizes.status().message();
    return s;
  }
  std::map<std::string, double> bytes;
  for (int r = 0; r < sizes.value().rows(); ++r)
    bytes[std::string(sizes.value().Text(r, 0))] = static_cast<double>(sizes.value().OptInt(r, 1).value_or(0));
  auto periods = db.Query(kPeriodsSql);
  if (!periods.ok() || periods.value().rows() != 1) {
    s.error = "rollup periods: " + (periods.ok() ? std::string("no row") : periods.status().message());
    return s;
  }
  return FleetStorageFrom(bytes, periods.value().OptInt(0, 0).value_or(0), periods.value().OptInt(0, 1).value_or(0),
                          nodes, simulated_s, policy);
}

}  // namespace rdmascope::collector::bench
