# berth_part_library(TARGET DIR DEPS...): a static library from every *.cc under DIR (main.cc
# excluded). One library per folder keeps a half-written file in one folder from breaking the
# build of another, and lets each unit-test binary link only what it tests.
function(berth_part_library target dir)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.cc)
  list(FILTER sources EXCLUDE REGEX ".*/main\\.cc$")
  if(sources)
    add_library(${target} STATIC ${sources})
    target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR} ${RAPIDJSON_INCLUDE_DIR})
    target_link_libraries(${target} PUBLIC ${ARGN})
  else()
    add_library(${target} INTERFACE)
    target_include_directories(${target} INTERFACE ${PROJECT_SOURCE_DIR} ${RAPIDJSON_INCLUDE_DIR})
    target_link_libraries(${target} INTERFACE ${ARGN})
  endif()
endfunction()
