"""The real local Dask cluster the distributed tests run on (issue 26): a scheduler and two
worker processes, one per test module, and a client of it. Import both fixtures into a test
module: ``from tests.dask_cluster import client, cluster  # noqa: F401``."""

from __future__ import annotations

import logging

import pytest
from distributed import Client, LocalCluster


@pytest.fixture(scope="module")
def cluster():
    cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                           silence_logs=logging.CRITICAL, scheduler_kwargs={"dashboard_address": "127.0.0.1:0"})
    yield cluster
    cluster.close()


@pytest.fixture(scope="module")
def client(cluster):
    client = Client(cluster, set_as_default=False)
    yield client
    client.close()
