module example.com/loginlink

go 1.22
