list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/task_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/streaming_pool_test.cpp)
