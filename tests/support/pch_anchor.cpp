// The one source of rdmascope_test_pch (tests/CMakeLists.txt): the target
// exists to build the precompiled header the GoogleTest files reuse.
