// The sanitized driver's objects are built with RB_GATE_TEST (CMakeLists.txt: they are shared with
// tests/gate.cpp), so gate::arrive calls this hook; in the driver no process is made late.
namespace rb {
void gate_test_before_arrive();
}

void rb::gate_test_before_arrive() {}
