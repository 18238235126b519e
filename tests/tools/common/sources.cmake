list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/option_tables_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/table_test.cpp)
