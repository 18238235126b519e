list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/context_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linear_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pack_bf16_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/padded_rnn_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_cache_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rnn_test.cpp
  # Test support shared by the unit tests (oracles and gradient checks).
  ${CMAKE_CURRENT_LIST_DIR}/../../support/gradcheck.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../../support/reference_matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../../support/reference_rnn.cpp)
