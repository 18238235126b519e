list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/error_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_number_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/log_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parallel_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/profile_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/strings_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/svg_test.cpp)
