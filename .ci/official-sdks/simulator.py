"""The simulator for the official-SDK suites: started on a free port at 3600x (a few real
seconds are hours of provider time), stopped by the caller."""
import re
import subprocess


def start(binary):
    """The running simulator and its base URL."""
    sim = subprocess.Popen(
        [binary, "--port", "0", "--time-scale", "3600"],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = sim.stdout.readline()
    found = re.search(r"listening on (http://[0-9.:]+)", line)
    if not found:
        sim.kill()
        raise SystemExit(f"the simulator did not start: {line!r}")
    return sim, found.group(1)
