// Early returns for the writer's statement code: RETURN_IF_ERROR(status) returns
// a failed Status; ASSIGN_STMT(var, Q(...)) binds a cached statement to `var`
// or returns the error that preparing it gave. For .cpp files of the Store only.
#pragma once

#define RETURN_IF_ERROR(expr)          \
  do {                                 \
    ::rdmascope::Status s_ = (expr);   \
    if (!s_.ok()) return s_;           \
  } while (0)

#define ASSIGN_STMT(var, expr)         \
  auto var##_r = (expr);               \
  if (!var##_r.ok()) return var##_r.status(); \
  SqlStmt& var = *var##_r.value()
