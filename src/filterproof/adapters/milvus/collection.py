"""The shape of a filterproof collection in Milvus: its schema, its vector index, its search parameters.

``id`` (VARCHAR primary key), ``vector`` (FLOAT_VECTOR, COSINE) and the typed policy
fields of ``expr.STORED_FIELDS``, with no dynamic field: a typo in a field name is an
error, not a filter on a missing key. ``tenant_mode=partition_key`` makes ``tenant`` the
partition key (Milvus's multi-tenancy by partition).
"""

from __future__ import annotations

from typing import Any

from pymilvus import DataType, MilvusClient

from filterproof.adapters.milvus import expr as mx
from filterproof.adapters.milvus.limits import MAX_CAPACITY, MAX_LENGTH
from filterproof.adapters.milvus.options import MilvusOptions

INDEX_TYPES = {"flat": "FLAT", "hnsw": "HNSW", "hnsw_sq": "HNSW_SQ", "ivf_flat": "IVF_FLAT",
               "ivf_sq8": "IVF_SQ8", "autoindex": "AUTOINDEX"}


def schema(client: MilvusClient, dim: int, options: MilvusOptions) -> Any:
    fields = client.create_schema(auto_id=False, enable_dynamic_field=False)
    fields.add_field(mx.ID, DataType.VARCHAR, is_primary=True, max_length=MAX_LENGTH)
    fields.add_field(mx.VECTOR, DataType.FLOAT_VECTOR, dim=dim)
    for name in mx.TEXT_FIELDS:
        fields.add_field(name, DataType.VARCHAR, max_length=MAX_LENGTH,
                         is_partition_key=name == mx.TENANT and options.tenant_mode == "partition_key")
    for name in mx.INT_FIELDS:
        fields.add_field(name, DataType.INT64)
    fields.add_field(mx.GROUPS, DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=MAX_CAPACITY,
                     max_length=MAX_LENGTH)
    fields.add_field(mx.CURRENT, DataType.BOOL)
    return fields


def index_params(client: MilvusClient, options: MilvusOptions) -> Any:
    params: dict[str, Any] = {}
    if options.index in ("hnsw", "hnsw_sq"):
        params = {"M": options.m, "efConstruction": options.ef_construction}
    elif options.index.startswith("ivf"):
        params = {"nlist": options.nlist}
    prepared = client.prepare_index_params()
    prepared.add_index(mx.VECTOR, index_type=INDEX_TYPES[options.index], metric_type="COSINE", params=params)
    return prepared


def search_params(options: MilvusOptions) -> dict[str, Any]:
    params: dict[str, Any] = {}
    if options.ef is not None:
        params["ef"] = options.ef
    if options.nprobe is not None:
        params["nprobe"] = options.nprobe
    return {"metric_type": "COSINE", "params": params}
