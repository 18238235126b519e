list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/padded_rnn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rnn.cpp)

# Threads: Debian's oneDNN runs on OpenMP (libgomp) and has no thread-count API of its own, so
# context.cpp calls omp_set_num_threads(). Only that file is compiled with -fopenmp, and
# heed_core links the same OpenMP runtime oneDNN already loads (one runtime per process).
# The link is declared here because heed_core is created after this file is included; the
# cleaner home is `target_link_libraries(heed_core PRIVATE OpenMP::OpenMP_CXX)` in
# lib/CMakeLists.txt with `find_package(OpenMP REQUIRED)` at the top level.
find_package(OpenMP REQUIRED COMPONENTS CXX)
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/context.cpp PROPERTIES
  COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
link_libraries(${OpenMP_CXX_LIBRARIES})
