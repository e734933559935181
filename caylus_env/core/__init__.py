"""The shared core: what every game of the platform gets once (see ``contract``)."""
