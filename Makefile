# Entry points. `make` installs what is missing (scripts/deps.sh) and builds;
# `make test` also builds the ASan/UBSan tree and runs both test suites;
# `make demo` starts cuzk-daemon on a built-in synthetic circuit, proves a batch
# through cuzk-bench and stops it; `make demo-offline` runs setup -> prove ->
# verify with the offline CLI; `make package` builds the Debian package.
# `make CUDA=off` builds the CPU backend only
# (no nvcc run even where nvcc is installed).
MAKEFLAGS += --no-print-directory
BUILD     ?= build
SAN_BUILD ?= build-san
JOBS      ?= $(shell nproc)
BLST_DIR   = $(abspath $(BUILD))/deps/blst
CUDA      ?= on
CUDA_FLAG  = $(if $(filter off OFF 0 no,$(CUDA)),-DCUZK_CUDA=OFF,-DCUZK_CUDA=ON)

.PHONY: all deps build san test demo demo-offline bench package clean format

all: build

deps:
	@scripts/deps.sh $(BUILD)

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CUDA_FLAG) >$(BUILD)/configure.log 2>&1 \
	    || { cat $(BUILD)/configure.log; exit 1; }
	@grep "^-- cuzk:" $(BUILD)/configure.log
	@cmake --build $(BUILD) -j $(JOBS)

san: deps
	@cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
	    -DCUZK_SANITIZE=ON -DCUZK_CUDA=OFF -DCUZK_BLST_DIR=$(BLST_DIR) >/dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS)

test: build san
	@scripts/interop-deps.sh $(BUILD)
	ctest --test-dir $(BUILD) -L unit --output-on-failure
	ctest --test-dir $(SAN_BUILD) -L san --output-on-failure

demo: build
	@scripts/demo_daemon.sh $(BUILD)

demo-offline: build
	@scripts/demo.sh $(BUILD)/cuzk

bench: build
	@bench/cpu_prove.sh $(BUILD)

# The Debian package (cmake/package.cmake): $(BUILD)/cuzk_<version>_<arch>.deb
package: build
	@cd $(BUILD) && cpack -G DEB

format:
	@clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
