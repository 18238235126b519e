list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/row_buffer_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shape_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_ops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensor_test.cpp)
