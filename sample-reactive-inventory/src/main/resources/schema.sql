-- No CHECK (stock >= 0) on purpose: the sample shows which strategies keep stock from being
-- oversold by themselves. A production schema should add one as a further guard.
create table if not exists product (
    id          bigserial primary key,
    name        varchar(200) not null,
    stock       integer      not null,
    last_fence  bigint       not null default 0
);

create table if not exists purchase_order (
    id          bigserial primary key,
    product_id  bigint       not null references product (id),
    quantity    integer      not null,
    strategy    varchar(20)  not null,
    fence       bigint
);
