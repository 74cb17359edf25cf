# Start the database and message-bus servers the integration tests use (sourced by run-tests).
# Each start is idempotent; servers we started are stopped by stop_servers.

STARTED_PG=0
MARIADB_PID=""
RABBITMQ_PID=""
TEST_DB_PASSWORD=saphira-test

start_postgresql() {
  local version
  version=$(pg_lsclusters -h | awk 'NR==1 {print $1}')
  if [ -z "$version" ]; then
    say "no PostgreSQL cluster: creating one"
    version=$(ls /usr/lib/postgresql | sort -n | tail -1)
    pg_createcluster "$version" main >/dev/null
  fi
  if ! pg_lsclusters -h | awk '$2=="main" {print $4}' | grep -q online; then
    say "starting PostgreSQL $version"
    pg_ctlcluster "$version" main start
    STARTED_PG=$version
  fi
  su postgres -c "psql -q -v ON_ERROR_STOP=1" <<SQL >/dev/null
SET client_min_messages = warning;
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'saphira') THEN
    CREATE ROLE saphira LOGIN CREATEDB PASSWORD '$TEST_DB_PASSWORD';
  END IF;
END \$\$;
-- DROP DATABASE ... WITH (FORCE) must end an autovacuum worker that is still in a
-- test database after heavy writes; without this the drop fails now and then.
GRANT pg_signal_backend TO saphira;
SQL
  export SAPHIRA_TEST_POSTGRESQL="postgresql+psycopg://saphira:$TEST_DB_PASSWORD@127.0.0.1:5432"
}

start_mariadb() {
  local sock=/run/mysqld/mysqld.sock
  if ! mariadb-admin --socket="$sock" ping >/dev/null 2>&1; then
    say "starting MariaDB"
    install -d -o mysql -g mysql /run/mysqld
    if [ ! -d /var/lib/mysql/mysql ]; then
      mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
    fi
    mariadbd --user=mysql --datadir=/var/lib/mysql --socket="$sock" \
      --bind-address=127.0.0.1 --port=3306 >/tmp/saphira-mariadb.log 2>&1 &
    MARIADB_PID=$!
    for _ in $(seq 100); do
      mariadb-admin --socket="$sock" ping >/dev/null 2>&1 && break
      sleep 0.1
    done
  fi
  mariadb --socket="$sock" -uroot <<SQL
CREATE USER IF NOT EXISTS 'saphira'@'127.0.0.1' IDENTIFIED BY '$TEST_DB_PASSWORD';
CREATE USER IF NOT EXISTS 'saphira'@'localhost' IDENTIFIED BY '$TEST_DB_PASSWORD';
GRANT ALL PRIVILEGES ON \`saphira\_%\`.* TO 'saphira'@'127.0.0.1';
GRANT ALL PRIVILEGES ON \`saphira\_%\`.* TO 'saphira'@'localhost';
SQL
  export SAPHIRA_TEST_MARIADB="mysql+pymysql://saphira:$TEST_DB_PASSWORD@127.0.0.1:3306"
}

# RabbitMQ without systemd: the packaged wrapper runs it as user rabbitmq in
# the background; its beam PID (from the pid file) is what we stop.
start_rabbitmq() {
  local pidfile=/run/saphira-rabbitmq/rabbit.pid
  if ! rabbitmq-diagnostics -q ping >/dev/null 2>&1; then
    say "starting RabbitMQ"
    install -d -o rabbitmq -g rabbitmq /var/log/rabbitmq /var/lib/rabbitmq "${pidfile%/*}"
    rm -f "$pidfile"
    RABBITMQ_PID_FILE=$pidfile RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 \
      setsid rabbitmq-server >/tmp/saphira-rabbitmq.log 2>&1 < /dev/null &
    rabbitmqctl wait --timeout 120 "$pidfile" >/dev/null
    rabbitmqctl await_startup >/dev/null
    RABBITMQ_PID=$(cat "$pidfile")
  fi
  rabbitmqctl -q add_vhost saphira 2>/dev/null || true
  rabbitmqctl -q add_user saphira "$TEST_DB_PASSWORD" 2>/dev/null ||
    rabbitmqctl -q change_password saphira "$TEST_DB_PASSWORD"
  rabbitmqctl -q set_permissions -p saphira saphira '.*' '.*' '.*'
  export SAPHIRA_TEST_RABBIT="rabbit://saphira:$TEST_DB_PASSWORD@127.0.0.1:5672/saphira"
}

stop_servers() {
  if [ -n "$RABBITMQ_PID" ]; then
    say "stopping RabbitMQ (pid $RABBITMQ_PID)"
    kill "$RABBITMQ_PID" 2>/dev/null || true
    while kill -0 "$RABBITMQ_PID" 2>/dev/null; do sleep 0.2; done
  fi
  if [ -n "$MARIADB_PID" ]; then
    say "stopping MariaDB (pid $MARIADB_PID)"
    kill "$MARIADB_PID" 2>/dev/null || true
    wait "$MARIADB_PID" 2>/dev/null || true
  fi
  if [ "$STARTED_PG" != 0 ]; then
    say "stopping PostgreSQL $STARTED_PG"
    pg_ctlcluster "$STARTED_PG" main stop || true
  fi
}
