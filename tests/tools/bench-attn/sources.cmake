list(APPEND HEED_TEST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/grid_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plot_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/saturation_test.cpp)
