#!/usr/bin/env python3
"""Samples the GPU's clocks beside a grading, for the kit's own measurements of the grader
(docs/maintainers.md, "The clock and the process lock"): until it is stopped (SIGTERM or
SIGINT), a line every 2-3 ms of

    t_ms sm_mhz memory_mhz power_mw temperature_c clock_event_reasons_hex

t on CLOCK_MONOTONIC, the clock GRADE_SPEED_TRACE's "request sent at" uses, so that each run
can be set beside the samples around it. Needs NVML's Python binding (nvidia-ml-py).

usage: gpu_clock_sampler.py OUT [GPU_INDEX]
"""
import signal
import sys
import time

import pynvml


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[-1])
    pynvml.nvmlInit()
    gpu = pynvml.nvmlDeviceGetHandleByIndex(int(sys.argv[2]) if len(sys.argv) == 3 else 0)
    reasons_of = getattr(pynvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
        pynvml.nvmlDeviceGetCurrentClocksThrottleReasons
    stopped = []
    for stop in (signal.SIGTERM, signal.SIGINT):
        signal.signal(stop, lambda *_: stopped.append(True))
    with open(sys.argv[1], "w", buffering=1 << 16) as out:
        while not stopped:
            now = time.clock_gettime(time.CLOCK_MONOTONIC) * 1e3
            try:
                sample = (pynvml.nvmlDeviceGetClockInfo(gpu, pynvml.NVML_CLOCK_SM),
                          pynvml.nvmlDeviceGetClockInfo(gpu, pynvml.NVML_CLOCK_MEM),
                          pynvml.nvmlDeviceGetPowerUsage(gpu),
                          pynvml.nvmlDeviceGetTemperature(gpu, pynvml.NVML_TEMPERATURE_GPU))
                out.write(f"{now:.3f} {' '.join(map(str, sample))} {reasons_of(gpu):x}\n")
            except pynvml.NVMLError as error:
                out.write(f"{now:.3f} error {error}\n")
            time.sleep(0.002)
    pynvml.nvmlShutdown()


if __name__ == "__main__":
    main()
