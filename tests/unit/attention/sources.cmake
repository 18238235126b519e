list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/additive_scores_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attention_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/feed_forward_pool_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/flops_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/normalization_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/options_test.cpp)
