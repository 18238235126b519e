list(APPEND HEED_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/linear.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul.cpp
  ${CMAKE_CURRENT_LIST_DIR}/matmul_peak.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/padded_rnn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rnn.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax.cpp)

# Threads: Debian's oneDNN runs on OpenMP (libgomp) and has no thread-count API of its own, so
# context.cpp calls omp_set_num_threads(). Only that file is compiled with -fopenmp; heed_core
# links the OpenMP runtime oneDNN already loads (lib/CMakeLists.txt), one runtime per process.
set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/context.cpp PROPERTIES
  COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
