%% Erlang sample
-module(shapes).
-export([area/1, start/0]).

-record(circle, {r = 1.0 :: float()}).

area(#circle{r = R}) -> math:pi() * R * R;
area({rect, W, H}) when W > 0, H > 0 -> W * H;
area(_) -> 0.

start() ->
    Pid = spawn(fun() -> loop(0) end),
    Pid ! {add, 16#1F},
    receive
        {result, N} -> io:format("Got ~p~n", [N])
    after 1000 -> timeout
    end.

loop(Acc) ->
    receive
        {add, N} -> loop(Acc + N);
        stop -> ok
    end.
