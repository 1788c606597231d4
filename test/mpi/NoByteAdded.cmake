# No byte added (issue 43): the layer hands MPI the program's buffer,
# count and datatype for every point-to-point operation, nothing joined to
# them. bytes/pmpi_bytes.c, linked into the program below the layer,
# records each PMPI call on the program's communicator; the program
# (bytes/no_byte_added.c, 2 ranks) compares them with its own arguments.
# Included from MpiTests.cmake.
#
# Registered for the blocking protocol only: the non-blocking protocol
# still joins its 8-byte header to every message (a count of bytes 8
# larger, or a struct datatype 8 bytes larger), and the test fails there
# until the counting scheme replaces the header. To run it there, add
# nonblocking to the list below (or run the program by hand with
# CCC_PROTOCOL=nonblocking: it names each operation whose call differs).
set(ccc_no_byte_added_protocols blocking)

foreach(mpi ${CCC_MPI_BUILT})
  set(exe mpi_${mpi}_no_byte_added)
  ccc_mpi_program(${mpi} ${exe} bytes/no_byte_added.c NOPLAIN)
  # The recorder is not compiled with the pass: it is below the layer.
  add_library(ccc_pmpi_bytes_${mpi} OBJECT bytes/pmpi_bytes.c)
  target_include_directories(ccc_pmpi_bytes_${mpi} PRIVATE
    ${CCC_MPI_${mpi}_INCLUDES})
  target_sources(${exe} PRIVATE $<TARGET_OBJECTS:ccc_pmpi_bytes_${mpi}>)
  target_include_directories(${exe} PRIVATE
    ${CMAKE_CURRENT_SOURCE_DIR}/bytes)
  ccc_mpi_launcher(launch ${mpi})
  if(mpi STREQUAL "openmpi")
    list(INSERT launch 1 -x CCC_UNSAVED)
  endif()
  foreach(protocol ${ccc_no_byte_added_protocols})
    set(test mpi.${mpi}.${protocol}.no_byte_added)
    add_test(NAME ${test} COMMAND ${launch} 2 $<TARGET_FILE:${exe}>)
    # A run takes about 0.5 s (Open MPI) and 0.2 s (MPICH) on the loaded
    # 2-core machine, most of it the launcher's start: 60 s is 100 times
    # that. The recorder's globals are not the program's state (no
    # checkpoint is taken): CCC_UNSAVED=ignore, else the runtime refuses
    # to start with globals it would not save.
    set_tests_properties(${test} PROPERTIES TIMEOUT 60
      FAIL_REGULAR_EXPRESSION "ccc:"
      ENVIRONMENT "${mpi_env};CCC_PROTOCOL=${protocol};CCC_UNSAVED=ignore")
  endforeach()
endforeach()
