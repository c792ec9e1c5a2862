-- Stock has no CHECK (stock >= 0) on purpose: the sample shows which strategies keep it
-- non-negative by themselves. A production schema should add one as a further guard.
create table product (
    id          bigserial primary key,
    name        varchar(200) not null,
    stock       integer      not null,
    version     bigint       not null default 0,
    last_fence  bigint       not null default 0
);

create table purchase_order (
    id          bigserial primary key,
    product_id  bigint       not null references product (id),
    quantity    integer      not null,
    strategy    varchar(20)  not null,
    instance    varchar(100) not null,
    created_at  timestamp    not null default now()
);

create index purchase_order_product on purchase_order (product_id);

create table reconciliation_run (
    id          bigserial primary key,
    instance    varchar(100) not null,
    started_at  timestamp    not null,
    products    integer      not null
);
