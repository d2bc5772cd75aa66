# The few commands the README names. Everything else is a script under scripts/ or images/.
SWIFT ?= swift
BUILD_FLAGS ?= -c release --static-swift-stdlib
BIN = .build/release/boardwalk
SHOTS ?= out/shots

.PHONY: deps test-deps build run test unit-test install clean

deps:
	scripts/install-deps.sh build

test-deps:
	scripts/install-deps.sh test

build: deps
	$(SWIFT) build $(BUILD_FLAGS) --product boardwalk

# Runs the kiosk: on this machine's DRM device when one is free, otherwise headless
# (writing screenshots to $(SHOTS)).
run: build
	scripts/run.sh $(BIN)

unit-test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

test: unit-test

install: build
	scripts/install.sh $(BIN)

clean:
	rm -rf .build out
