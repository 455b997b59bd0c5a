# End-to-end suites. Each e2e/tests/test_*.py is one ctest test, run with Debian's python3 (which
# has python3-kubernetes) against real binaries. The environment tells each suite where things are.
find_program(SYSTEM_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
file(GLOB E2E_SUITES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_*.py)
foreach(suite ${E2E_SUITES})
  get_filename_component(name ${suite} NAME_WE)
  add_test(NAME e2e.${name} COMMAND ${SYSTEM_PYTHON3} -m unittest -v ${name}
           WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/tests)
  set_tests_properties(e2e.${name} PROPERTIES
    LABELS e2e
    TIMEOUT 600
    ENVIRONMENT "BERTH_ROOT=${PROJECT_SOURCE_DIR};BERTH_BIN=${CMAKE_BINARY_DIR}/bin;PYTHONPATH=${CMAKE_CURRENT_SOURCE_DIR}/lib;PYTHONDONTWRITEBYTECODE=1")
endforeach()
