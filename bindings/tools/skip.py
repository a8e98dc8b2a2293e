"""Stand-in test for a binding whose toolchain is missing: say so and exit 77 (meson: skipped)."""
import sys

print("SKIPPED: " + " ".join(sys.argv[1:]))
sys.exit(77)
