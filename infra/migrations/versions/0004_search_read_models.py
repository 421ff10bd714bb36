"""The search team's read models: statute articles, complexes, one-room listings, real deals.

Loaded from infra/seed/ by `jipsa seed` (which `make run` performs), never written by anything
else; the search service reads only these tables. Columns follow the shipped files (their READMEs
in infra/seed/ say what each means): money in 만원, areas in m² (supply area for complexes).

Revision ID: 0004
Revises: 0003
"""

from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE legal_articles (
            article_id            text    PRIMARY KEY,      -- e.g. 주택임대차보호법/제7조
            law_title             text    NOT NULL,
            doc_type              text    NOT NULL,         -- 법률 / 시행령 / 시행규칙 / 대법원규칙
            category              text,
            law_number            text,
            enforcement_date      date    NOT NULL,
            article_number        text    NOT NULL,
            article_title         text,
            chapter               text,
            is_supplementary      boolean NOT NULL,
            is_deleted            boolean NOT NULL,
            is_tenant_protection  boolean,
            text                  text    NOT NULL
        );
        CREATE INDEX legal_articles_law ON legal_articles (law_title, article_number);

        CREATE TABLE complexes (
            complex_id               text    PRIMARY KEY,
            name                     text    NOT NULL,
            property_type            text    NOT NULL CHECK (property_type IN ('apartment', 'officetel')),
            gu                       text    NOT NULL,
            dong                     text    NOT NULL,
            lat                      double precision,
            lon                      double precision,
            completion_ym            text,
            dong_count               integer,
            household_count          integer,
            area_min_m2              double precision,
            area_max_m2              double precision,
            area_rep_m2              double precision,
            sale_listing_count       integer NOT NULL DEFAULT 0,
            jeonse_listing_count     integer NOT NULL DEFAULT 0,
            monthly_listing_count    integer NOT NULL DEFAULT 0,
            short_term_listing_count integer NOT NULL DEFAULT 0,
            sale_min_manwon          integer,
            sale_max_manwon          integer,
            jeonse_min_manwon        integer,
            jeonse_max_manwon        integer,
            monthly_rent_min_manwon  integer,
            monthly_rent_max_manwon  integer,
            subway_station           text,
            subway_line              text,
            subway_distance_m        integer,
            subway_walk_min          integer,
            schools                  text[]  NOT NULL DEFAULT '{}',
            collected_at             timestamptz NOT NULL
        );
        CREATE INDEX complexes_place ON complexes (gu, dong, property_type);
        CREATE INDEX complexes_station ON complexes (subway_station);

        CREATE TABLE one_rooms (
            listing_id           integer PRIMARY KEY,
            building_type        text    NOT NULL,
            deal_type            text    NOT NULL CHECK (deal_type IN ('monthly', 'jeonse', 'short_term')),
            confirmed_date       date,
            area_exclusive_m2    double precision,
            area_supply_m2       double precision,
            direction            text,
            floor_info           text,
            floor                integer,
            total_floors         integer,
            deposit_manwon       integer,
            monthly_rent_manwon  integer,
            gu                   text    NOT NULL,
            dong                 text    NOT NULL,
            lat                  double precision,
            lon                  double precision,
            subway_station       text,
            subway_line          text,
            subway_distance_m    integer,
            subway_walk_min      integer,
            collected_at         timestamptz NOT NULL
        );
        CREATE INDEX one_rooms_place ON one_rooms (gu, dong, deal_type);

        -- Actual deals (실거래가) imported by `jipsa seed --molit FILE.csv`, matched to complexes.
        CREATE TABLE real_deals (
            deal_key        text    PRIMARY KEY,        -- a hash of the source row: re-imports are idempotent
            deal_kind       text    NOT NULL CHECK (deal_kind IN ('sale', 'jeonse', 'monthly')),
            complex_id      text    REFERENCES complexes,
            gu              text    NOT NULL,
            dong            text,
            complex_name    text    NOT NULL,
            area_m2         double precision NOT NULL,  -- 전용면적, as the government publishes it
            contract_date   date    NOT NULL,
            price_manwon    integer,                    -- 거래금액 for a sale
            deposit_manwon  integer,
            monthly_manwon  integer,
            floor           integer,
            built_year      integer,
            cancelled       boolean NOT NULL DEFAULT false
        );
        CREATE INDEX real_deals_place ON real_deals (gu, dong, deal_kind, contract_date);
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE real_deals, one_rooms, complexes, legal_articles;")
