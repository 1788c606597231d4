# State that lives in libraries (issue 45): programs that keep a library's
# objects across their time loop (an HDF5 file, a PETSc solver, FFTW plans),
# killed and restarted; their output and files must be those of the plain
# build's uninterrupted run. Built with the libraries Debian ships: parallel
# HDF5 for both MPIs, PETSc and FFTW's MPI interface for Open MPI (Debian's
# default MPI). A library that is not installed skips its tests (the setup
# script installs them all).

set(CCC_LIBRARY_TRIALS 2 CACHE STRING
    "kill/restart trials of each library program")

# Kill/restart test killrestart.mpi.MPI.library.NAME.npNP of program SRC
# (in programs/libraries) with ARGS, built with INCLUDE and LIBS; further
# arguments are harness options.
function(ccc_library_test mpi name src np args include libs)
  set(exe mpi_${mpi}_library_${name})
  ccc_mpi_program(${mpi} ${exe} programs/libraries/${src})
  foreach(t ${exe} ${exe}.plain)
    target_include_directories(${t} PRIVATE ${include})
    target_link_libraries(${t} PRIVATE ${libs})
  endforeach()
  # The library's MPI calls must reach the layer: linked whole, the layer
  # defines every MPI function, and ld exports those the library uses (as
  # ckpt-cc links it). Linked as an archive before the library, the
  # members only the library needs would be left out and its calls would
  # bind to MPI's own functions, handles and all.
  target_link_options(${exe} PRIVATE "LINKER:--whole-archive"
    "$<TARGET_FILE:ccc_mpi_${mpi}>" "LINKER:--no-whole-archive")
  ccc_mpi_killrestart(${mpi} library.${name} ${exe} ${np} "${args}"
                      nonblocking ${CCC_LIBRARY_TRIALS} ${ARGN})
endfunction()

set(arch_lib /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})
foreach(mpi ${CCC_MPI_BUILT})
  # Debian's parallel HDF5 of this MPI (its own include and lib folders).
  find_path(CCC_HDF5_${mpi}_INCLUDE hdf5.h
            PATHS ${arch_lib}/hdf5/${mpi}/include NO_DEFAULT_PATH)
  find_library(CCC_HDF5_${mpi}_LIB hdf5
               PATHS ${arch_lib}/hdf5/${mpi}/lib NO_DEFAULT_PATH)
  if(CCC_HDF5_${mpi}_INCLUDE AND CCC_HDF5_${mpi}_LIB)
    # 400 output groups; about 0.6 s uninterrupted.
    ccc_library_test(${mpi} hdf5_fields hdf5_fields.c 2 "100000 250"
      ${CCC_HDF5_${mpi}_INCLUDE} ${CCC_HDF5_${mpi}_LIB})
  else()
    message(STATUS "ccc: no parallel HDF5 for ${mpi}: its library tests "
                   "are skipped")
  endif()
endforeach()

if(openmpi IN_LIST CCC_MPI_BUILT)
  find_path(CCC_PETSC_INCLUDE petscksp.h PATHS /usr/lib/petsc/include
            NO_DEFAULT_PATH)
  find_library(CCC_PETSC_LIB NAMES petsc petsc_real PATHS /usr/lib/petsc/lib)
  if(CCC_PETSC_INCLUDE AND CCC_PETSC_LIB)
    # 300 solves of 2000 unknowns; about 1.5 s uninterrupted.
    ccc_library_test(openmpi petsc_heat petsc_heat.c 2 "300"
      ${CCC_PETSC_INCLUDE} ${CCC_PETSC_LIB})
  endif()
  find_path(CCC_FFTW_MPI_INCLUDE fftw3-mpi.h)
  find_library(CCC_FFTW_MPI_LIB fftw3_mpi)
  find_library(CCC_FFTW_LIB fftw3)
  if(CCC_FFTW_MPI_INCLUDE AND CCC_FFTW_MPI_LIB AND CCC_FFTW_LIB)
    # 200 steps on a 64 x 64 grid; about 0.6 s uninterrupted.
    ccc_library_test(openmpi fftw_spectral fftw_spectral.c 2 "200"
      ${CCC_FFTW_MPI_INCLUDE} "${CCC_FFTW_MPI_LIB};${CCC_FFTW_LIB}"
      --files spectral.log)
  endif()
endif()
