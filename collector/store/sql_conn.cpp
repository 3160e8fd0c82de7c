// Transaction over either backend's connection (contract in sql_conn.h).
#include "collector/store/sql_conn.h"

namespace rdmascope::collector {

Transaction::~Transaction() {
  if (open_ && db_.InTransaction()) (void)db_.Exec("ROLLBACK");
}

Status Transaction::Begin() {
  Status s = db_.Begin();
  open_ = s.ok();
  return s;
}

Status Transaction::Commit() {
  Status s = db_.Exec("COMMIT");
  if (s.ok()) open_ = false;
  return s;
}

}  // namespace rdmascope::collector
