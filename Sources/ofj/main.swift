// ofj entry point: argument parsing and wiring only.
print("ofj 0.1.0")
