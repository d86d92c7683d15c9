"""What the kit's progress lines hold, shared by the tests that read them."""

#: tqdm's rate in a progress line: it turns the rate over below one trial a second
RATE = r"(trial/s|s/trial)"
