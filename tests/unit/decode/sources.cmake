list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/memory_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sampler_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/search_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/shortlist_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/translator_test.cpp)
