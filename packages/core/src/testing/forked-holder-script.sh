# An agent's shell connects to the host, hands the connection to a process that leaves its session
# (setsid, reparented to init, environment scrubbed), and names that process as the asker, keeping
# its own descriptor to read the answer. As the control, a process that left asks on a connection
# of its own, which passes (docs/security.md accepts it). argv: the host's port, a scratch directory.
port=$1 dir=$2
mkfifo "$dir/pid" "$dir/alone-pid"
exec 3<>"/dev/tcp/127.0.0.1/$port" 4<>"/dev/tcp/127.0.0.1/$port"
# The child inherits fds 3 and 4: bash opens them without close-on-exec.
setsid -f env -i /bin/sh -c 'echo $$ > "$1"; exec sleep 30' escaped "$dir/pid"
read -r pid < "$dir/pid"
printf 'POST /ticket HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nptydeck-asker-pid: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n' "$port" "$pid" >&3
printf 'GET /panel HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nptydeck-asker-pid: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: ptydeck.v1\r\n\r\n' "$port" "$pid" >&4
echo "ticket: $(timeout 10 head -c 2000 <&3 | tr -d '\r' | tr '\n' ' ')"
echo "panel: $(timeout 10 head -n 1 <&4 | tr -d '\r')"
exec 3<&- 4<&-
kill "$pid"
# The control: a process that left asks alone, on its own connection.
setsid -f env -i /bin/bash -c 'exec 5<>"/dev/tcp/127.0.0.1/$1"
  printf "POST /ticket HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nptydeck-asker-pid: %s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" "$1" $$ >&5
  head -n 1 <&5 | tr -d "\r" > "$2"' alone "$port" "$dir/alone-pid"
echo "alone: $(cat "$dir/alone-pid")"
